import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fail } from '../../core/problem.js';
import { signerFor } from '../../crypto/signature.js';
import { refuseInAgentRun } from '../person-only.js';
import { allowServiceSpec, denyServiceSpec, listServiceSpecs } from '../../service/server-trust.js';
import { removeServerPins, serverPinsFor, writeServerPins } from '../../service/server-pins.js';
import { addToken, CLIENT_NAME, listTokens, revokeToken } from '../../service/tokens.js';
import { runWorker } from '../../service/worker.js';
import { connectionRoom, type ConnectionRefusal } from '../../service/connections.js';
import { VERSION } from '../../version.js';
import { vouchHome } from '../../workspace/home.js';
import { integerFlag, parse } from '../args.js';
import { EXIT } from '../exit.js';
import { err, json, out, type Cli } from '../io.js';
import { pgTarget, type PgTarget } from '../pg-target.js';
import { describeSandbox, positiveFlag, SANDBOX_FLAGS, serviceKey, servicePool, UNPACK_MS, workerSandbox } from '../service-setup.js';
import { describe } from './worker.js';

export const help = `usage: vouch serve --key NAME [--listen HOST:PORT] [--ledger URL] [--workers N]
                   [--max-upload-mb N] [--max-job-seconds N] [--max-jobs-per-client N]
                   [--max-connections N] [--max-connections-per-address N]
                   [--lease-seconds N] [--allow-unconfined] [--job-memory-mb N]
                   [--job-processes N] [--job-file-mb N] [--job-disk-mb N]
       vouch serve token add NAME | token list | token revoke NAME   [--ledger URL] [--json]
       vouch serve allow FILE [--tree DIR] | deny SHA256 | allowed    [--json]

The verifier service: an HTTP JSON API (under /v1) that takes a client's
tree and check ids, runs the checks on a clean copy (in workers: --workers
here, or \`vouch worker\` processes anywhere that reach the same database),
and signs the receipts with a key no agent can reach. Clients verify them
with the public key they pinned (\`vouch verify --remote\`).

  --key NAME               the signing key under this server's VOUCH_HOME/keys (required)
  --listen HOST:PORT       default 127.0.0.1:8787 (port 0 picks a free one); the
                           API is plain HTTP: put TLS in front of it for anything
                           but loopback
  --ledger URL             postgres://... (default VOUCH_LEDGER, else ledger: in
                           vouch.yaml); \`vouch db migrate\` first
  --workers N              workers in this process (default 1; 0 = API only)
  --max-upload-mb N        largest archive accepted (default 50): 413 above it
  --max-job-seconds N      largest sum of check timeouts one job may have (default 1800): 422
  --max-jobs-per-client N  jobs one client may have queued or running (default 4): 429
  --max-connections N      connections held at once in all (default 512, fewer when
                           the descriptor limit is lower); one over it is closed
  --max-connections-per-address N
                           connections held at once from one address (default 32;
                           behind a proxy, raise it to --max-connections)
  --lease-seconds N        for the workers here, as \`vouch worker\` (default 30)
  --allow-unconfined, --job-memory-mb N, --job-processes N, --job-file-mb N,
  --job-disk-mb N          for the workers here, as \`vouch worker\` (which see):
                           a server whose workers cannot confine their checks
                           refuses to start without --allow-unconfined

Routes: POST /v1/jobs?spec_sha256=HEX&check=ID...&nonce=HEX[&git_head=ID&git_dirty=0|1]
(body: gzip'd tar of the tree, Content-Type application/gzip, read only after
every limit is checked, stored in parts) → 202 {job: {id, state, url}};
GET /v1/jobs/ID → {job: state, attempts, receipts...}; GET /v1/receipts/ID →
{receipt: {id, seq, hash, job, body, signature}, manifest}; GET /v1/healthz.
Every route but healthz needs
"Authorization: Bearer TOKEN"; every error, on any route, is {"error": {"code",
"message", "limit"?, "found"?, "hint"?}}.

Tokens, one per client, stored as SHA-256 only:
  token add NAME     prints the new token once; keep it, it cannot be shown again
                     (a name whose token was revoked gets a new one)
  token list         names, created, revoked
  token revoke NAME  the token stops working at once

The server's own trust list (this VOUCH_HOME, not the client's): a job runs
only when its tree's vouch.yaml is byte for byte a spec allowed here.
  allow FILE         read it first: it decides what runs on this server. Pins,
                     beside its hash, each check's tool configs (.npmrc,
                     pytest.ini, package.json for npm...) and the files its
                     inputs: match, as the tree holds them: a job whose upload
                     differs gets a signed UNKNOWN (tool_config_changed,
                     input_changed) for that check, and it does not run
  --tree DIR         the tree to pin from (default: the directory holding FILE)
  deny SHA256        withdraw one
  allowed            list the allowed hashes

exit: 0 done, 1 nothing to revoke/deny, 2 usage, key, database or sandbox problem, 130/143
stopped by SIGINT/SIGTERM (its workers' running jobs back in the queue)`;

const OPTIONS = {
  key: { type: 'string' },
  listen: { type: 'string' },
  ledger: { type: 'string' },
  workers: { type: 'string' },
  'max-upload-mb': { type: 'string' },
  'max-job-seconds': { type: 'string' },
  'max-jobs-per-client': { type: 'string' },
  'max-connections': { type: 'string' },
  'max-connections-per-address': { type: 'string' },
  'lease-seconds': { type: 'string' },
  tree: { type: 'string' },
  json: { type: 'boolean' },
  ...SANDBOX_FLAGS,
} as const;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('serve', args, OPTIONS);
  const [action, ...rest] = positionals;
  const home = vouchHome(cli.io.env);
  switch (action) {
    case undefined:
      return serve(cli, values, home);
    case 'token':
      if (rest[0] === 'add' || rest[0] === 'revoke') refuseInAgentRun(cli.io.env, `vouch serve token ${rest[0]}`);
      return token(cli, rest, pgTarget(cli, values.ledger, 'serve token'), values.json === true);
    case 'allow':
    case 'deny':
      // The server's trust list decides what runs and gets signed there: a person's act, as `vouch allow` is.
      refuseInAgentRun(cli.io.env, `vouch serve ${action}`);
      return trust(cli, action, rest, home, values.json === true, values.tree);
    case 'allowed':
      return trust(cli, action, rest, home, values.json === true);
    default:
      return fail({
        code: 'usage',
        message: `unknown action "${action}"`,
        where: 'vouch serve',
        expected: 'nothing (run the server), token, allow, deny or allowed',
      });
  }
}

type Values = ReturnType<typeof parse<typeof OPTIONS>>['values'];

async function serve(cli: Cli, values: Values, home: string): Promise<number> {
  const key = serviceKey(home, values.key, 'serve');
  const at = pgTarget(cli, values.ledger, 'serve');
  const [host, port] = listenAddress(values.listen ?? '127.0.0.1:8787');
  const workers = integerFlag('serve', 'workers', values.workers, 0) ?? 1;
  const limits = {
    maxUploadBytes: positiveFlag('serve', 'max-upload-mb', values['max-upload-mb'], 50) * 1024 * 1024,
    maxJobSeconds: positiveFlag('serve', 'max-job-seconds', values['max-job-seconds'], 1800),
    maxOpenJobs: positiveFlag('serve', 'max-jobs-per-client', values['max-jobs-per-client'], 4),
    // An upload that has not arrived in this time is dropped (a slow client cannot hold a slot for ever).
    uploadMs: 300_000,
  };
  const total = positiveFlag('serve', 'max-connections', values['max-connections'], 512);
  const connections = {
    total: connectionRoom(total),
    perAddress: positiveFlag('serve', 'max-connections-per-address', values['max-connections-per-address'], 32),
  };
  const leaseSeconds = positiveFlag('serve', 'lease-seconds', values['lease-seconds'], 30);
  const maxTreeBytes = 1024 * 1024 * 1024;
  // Before the database: workers that cannot confine their checks take no job at all (--workers 0 runs none).
  const confined = workers > 0 ? await workerSandbox('serve', home, key, values, maxTreeBytes) : undefined;
  const sandbox = confined?.sandbox;
  const pool = await servicePool(at, 4 + workers);
  const { buildServer, TIMEOUTS } = await import('../../service/server.js');
  const refusals = refusalLog((line) => err(cli, line));
  const app = await buildServer({
    pool,
    home,
    limits,
    connections,
    version: VERSION,
    log: (line) => err(cli, `vouch serve: error: ${line}`),
    onConnectionRefused: refusals,
  });
  const stop = cli.io.signal ?? new AbortController().signal;
  let address: string;
  try {
    address = await app.listen({ host, port });
  } catch (error) {
    await pool.end();
    return fail({ code: 'usage', message: `cannot listen on ${host}:${port}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, where: '--listen' });
  }
  const allowed = listServiceSpecs(home);
  err(cli, `vouch serve ${VERSION}: API v1 on ${address}`);
  err(cli, `  ledger   ${at.display}`);
  err(cli, `  key      ${key.name}  keyid ${key.publicKey.keyid}`);
  err(cli, `           public key (give clients this, out of band): ${key.publicKey.hex}`);
  err(cli, `  sandbox  ${sandbox ? describeSandbox(sandbox) : 'none needed here (--workers 0: the workers elsewhere say theirs)'}`);
  if (confined && confined.closed.length > 0) err(cli, `  fds      closed ${confined.closed.join(', ')} (inherited without close-on-exec: no check gets them)`);
  err(cli, `  limits   upload ${limits.maxUploadBytes / 1024 / 1024} MiB, job ${limits.maxJobSeconds} s, ${limits.maxOpenJobs} open jobs per client`);
  err(
    cli,
    `  conns    ${connections.total} at once${connections.total < total ? ` (the descriptor limit leaves room for no more than ${total})` : ''}, ${connections.perAddress} per address; headers within ${TIMEOUTS.headersMs / 1000} s, idle ${TIMEOUTS.idleMs / 1000} s, keep-alive ${TIMEOUTS.keepAliveMs / 1000} s`,
  );
  err(
    cli,
    `  trust    ${allowed.length} allowed spec${allowed.length === 1 ? '' : 's'}${allowed.length === 0 ? ': every job is refused until `vouch serve allow FILE`' : ''}`,
  );
  err(cli, `  workers  ${workers} in this process${workers === 0 ? ' (run `vouch worker` elsewhere)' : ''}`);
  // The address on stdout alone, for scripts that start a server on port 0.
  out(cli, address);

  const running = sandbox
    ? Array.from({ length: workers }, () =>
        runWorker(
          {
            pool,
            home,
            sign: signerFor(key),
            sandbox,
            maxTreeBytes,
            maxUnpackMs: UNPACK_MS,
            leaseSeconds,
            maxAttempts: 3,
            pollMs: 250,
            onEvent: (event) => err(cli, describe(event)),
          },
          stop,
        ),
      )
    : [];
  await new Promise<void>((resolveStop) => (stop.aborted ? resolveStop() : stop.addEventListener('abort', () => resolveStop(), { once: true })));
  await app.close();
  await Promise.all(running);
  await pool.end();
  return EXIT.ok;
}

/** The operator hears of connections refused at a cap: once, then at most every 10 s with how many. */
function refusalLog(write: (line: string) => void): (refusal: ConnectionRefusal) => void {
  let last = 0;
  let since = 0;
  return (refusal) => {
    since++;
    const now = Date.now();
    if (now - last < 10_000) return;
    write(`vouch serve: refused ${since} connection${since === 1 ? '' : 's'} at the cap (${refusal.kind === 'total' ? 'in all' : `from ${refusal.address}`})`);
    last = now;
    since = 0;
  };
}

function listenAddress(value: string): [string, number] {
  const match = /^(.+):(\d{1,5})$/.exec(value);
  const port = Number(match?.[2]);
  if (!match || port > 65535) {
    return fail({
      code: 'usage',
      message: '--listen expects HOST:PORT',
      where: 'vouch serve --listen',
      expected: '127.0.0.1:8787, or 127.0.0.1:0 for any free port',
      found: value,
    });
  }
  return [match[1]!.replace(/^\[(.*)\]$/, '$1'), port];
}

async function token(cli: Cli, rest: readonly string[], at: PgTarget, asJson: boolean): Promise<number> {
  const [verb, name, ...extra] = rest;
  const needsName = verb === 'add' || verb === 'revoke';
  if (!(needsName || verb === 'list') || (needsName && name === undefined) || extra.length > 0 || (verb === 'list' && name !== undefined)) {
    return fail({
      code: 'usage',
      message: 'expected `token add NAME`, `token list` or `token revoke NAME`',
      where: 'vouch serve token',
      found: rest.join(' '),
    });
  }
  if (needsName && !CLIENT_NAME.test(name!)) {
    return fail({
      code: 'usage',
      message: 'invalid client name',
      where: 'vouch serve token',
      expected: '1 to 64 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit',
      found: name!,
    });
  }
  const pool = await servicePool(at, 1);
  try {
    if (verb === 'add') {
      const added = await addToken(pool, name!);
      if (added.kind === 'exists') {
        return fail({
          code: 'usage',
          message: `client "${name}" already has a token`,
          where: 'vouch serve token add',
          hint: `revoke it first (\`vouch serve token revoke ${name}\`), or pick another name`,
        });
      }
      if (asJson) json(cli, { ok: true, name, token: added.token });
      else {
        out(cli, added.token);
        err(
          cli,
          `token for "${name}" (shown once: it is stored only as its SHA-256). Clients send it as "Authorization: Bearer TOKEN"; \`vouch verify --remote\` reads it from VOUCH_TOKEN (or --token-env NAME).`,
        );
      }
      return EXIT.ok;
    }
    if (verb === 'revoke') {
      const revoked = await revokeToken(pool, name!);
      if (asJson) json(cli, { ok: revoked, name });
      else out(cli, revoked ? `revoked the token of "${name}"` : `"${name}" has no live token`);
      return revoked ? EXIT.ok : EXIT.notOk;
    }
    const tokens = await listTokens(pool);
    if (asJson) json(cli, tokens);
    else
      out(
        cli,
        tokens.length === 0
          ? 'no tokens'
          : tokens.map((t) => `${t.name}  created ${t.created_at}${t.revoked_at ? `  REVOKED ${t.revoked_at}` : ''}`).join('\n'),
      );
    return EXIT.ok;
  } finally {
    await pool.end();
  }
}

async function trust(
  cli: Cli,
  action: 'allow' | 'deny' | 'allowed',
  rest: readonly string[],
  home: string,
  asJson: boolean,
  treeFlag?: string,
): Promise<number> {
  if (action === 'allowed') {
    const hashes = listServiceSpecs(home);
    if (asJson) json(cli, hashes);
    else out(cli, hashes.length === 0 ? 'no spec is allowed on this server' : hashes.join('\n'));
    return EXIT.ok;
  }
  const [arg, ...extra] = rest;
  if (arg === undefined || extra.length > 0) {
    return fail({ code: 'usage', message: `expected \`vouch serve ${action} ${action === 'allow' ? 'FILE' : 'SHA256'}\``, where: `vouch serve ${action}` });
  }
  if (action === 'deny') {
    const removed = denyServiceSpec(home, arg);
    if (removed) removeServerPins(home, arg);
    if (asJson) json(cli, { ok: removed, spec_sha256: arg });
    else out(cli, removed ? `denied ${arg}` : `${arg} was not allowed here`);
    return removed ? EXIT.ok : EXIT.notOk;
  }
  const path = resolve(cli.io.cwd, arg);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    return fail({ code: 'spec_unreadable', message: `cannot read ${arg}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, where: path });
  }
  const tree = resolve(cli.io.cwd, treeFlag ?? dirname(path));
  if (!statSync(tree, { throwIfNoEntry: false })?.isDirectory()) {
    return fail({
      code: 'usage',
      message: 'the tree to pin from is not a directory',
      where: 'vouch serve allow --tree',
      expected: 'the directory of a checkout of the project (default: the one holding FILE)',
      found: tree,
    });
  }
  const allowed = allowServiceSpec(home, bytes, path);
  if (!allowed.ok) return fail(allowed.error);
  const spec = allowed.value;
  const pins = await serverPinsFor(spec, tree);
  const written = writeServerPins(home, pins);
  if (!written.ok) return fail(written.error);
  const present = Object.values(pins.tool_configs).flatMap((configs) =>
    Object.entries(configs)
      .filter(([, digest]) => digest !== 'absent')
      .map(([file]) => file),
  );
  const inputs = Object.values(pins.inputs).flatMap((pin) => Object.keys(pin.files));
  if (asJson) {
    json(cli, {
      ok: true,
      spec_sha256: spec.sha256,
      checks: spec.checks.map((c) => c.id),
      tree,
      tool_configs: [...new Set(present)].sort(),
      inputs: [...new Set(inputs)].sort(),
    });
  } else {
    out(
      cli,
      `allowed on this server: ${spec.sha256}\n  ${spec.checks.length} check${spec.checks.length === 1 ? '' : 's'}: ${spec.checks.map((c) => c.id).join(', ')}`,
    );
    out(
      cli,
      `  pinned from ${tree}: ${counted([...new Set(present)], 'tool config')}, ${counted([...new Set(inputs)], 'input file')} (a job whose upload differs gets a signed UNKNOWN for that check)`,
    );
  }
  return EXIT.ok;
}

function counted(names: readonly string[], noun: string): string {
  if (names.length === 0) return `no ${noun}s present`;
  const shown = names.slice(0, 4).join(', ') + (names.length > 4 ? `, +${names.length - 4} more` : '');
  return `${names.length} ${noun}${names.length === 1 ? '' : 's'} (${shown})`;
}
