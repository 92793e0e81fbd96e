import { fail } from '../../core/problem.js';
import { publicKeyArg } from '../../crypto/key-arg.js';
import { keyringOf } from '../../crypto/keyring.js';
import { signingKeyFor } from '../../crypto/select.js';
import { signerFor } from '../../crypto/signature.js';
import { publicKeyFromHex } from '../../crypto/ed25519.js';
import { gitState } from '../../engine/git.js';
import { TreeReader } from '../../engine/tree-reader.js';
import type { StoredReceipt } from '../../receipt/receipt.js';
import { explainReason } from '../../render/reasons.js';
import { paint } from '../../render/color.js';
import { renderVerifyLine } from '../../render/receipt-line.js';
import { ranEntry, runOk, unrecordedEntry } from '../../engine/outcome.js';
import { renderSummary } from '../../render/status.js';
import { selectChecks } from '../../spec/select.js';
import { localDraft } from '../../remote/record.js';
import { verifyRemotely, type RemoteOutcome } from '../../remote/submit.js';
import { remoteBase } from '../../remote/url.js';
import { verifierKeyring } from '../../engine/verifier-key.js';
import { integerFlag } from '../args.js';
import { EXIT } from '../exit.js';
import { err, json, out, type Cli } from '../io.js';

export interface RemoteFlags {
  readonly remote: string;
  readonly pubkey?: string;
  readonly 'token-env'?: string;
  readonly 'insecure-loopback'?: boolean;
  readonly wait?: string;
  readonly json?: boolean;
}

/**
 * `vouch verify --remote URL`: the checks run on the verifier service, not
 * here. Receipts it signs are accepted only under the pinned key and only
 * when they bind to these files; accepted ones are recorded in the local
 * ledger (marked with the verifier's key id), so `status` shows them like
 * local ones. Whatever fails is UNKNOWN and nothing runs locally instead.
 */
export async function runRemote(cli: Cli, values: RemoteFlags, ids: readonly string[]): Promise<number> {
  const session = cli.session;
  const workspace = session.workspace();
  const spec = await session.spec(workspace);
  const checks = selectChecks(spec, ids);
  const home = session.home;
  const base = remoteBase(values.remote, values['insecure-loopback'] === true);
  if (!base.ok) return fail(base.error);
  const pinned = pinnedKey(values.pubkey, spec.verifierKey, home, cli.io.cwd);
  const tokenName = values['token-env'] ?? 'VOUCH_TOKEN';
  const token = cli.io.env[tokenName];
  if (!token) {
    return fail({
      code: 'usage',
      message: `no token for the verifier: ${tokenName} is not set`,
      where: 'vouch verify --remote',
      expected: `the bearer token the server's operator gave you, in the environment variable ${tokenName}`,
      hint: 'the operator runs `vouch serve token add NAME`; export it (never put it in a file in the workspace); --token-env NAME reads another variable',
    });
  }
  const waitSeconds = integerFlag('verify', 'wait', values.wait, 1) ?? checks.reduce((sum, check) => sum + check.timeout, 0) + 600;
  // Resolve the local signing key before anything is sent: a local record that cannot be signed as the spec asks would count for nothing.
  const key = signingKeyFor(home, cli.io.env, spec, workspace.root);
  if (!key.ok) return fail(key.error);
  const trustedForStatus = verifierKeyring(home, spec.verifierKey).has(pinned.keyid);

  const errPaint = paint(cli.color && cli.io.stderrIsTTY);
  let lastReport = '';
  // Through the stat cache, like status: the tree is read when packed and again when the job is done.
  const files = new TreeReader({ workspace, home, ...(cli.io.hashWorker && { hashWorker: cli.io.hashWorker }) });
  const outcomes = await verifyRemotely({
    base: base.value,
    token,
    pinned: keyringOf([{ name: 'pinned verifier key', publicKey: pinned }]),
    files,
    spec,
    checks,
    // This work tree's git facts, as this client sees them: the receipt records them as the client's claim.
    git: await gitState(workspace.root),
    waitMs: waitSeconds * 1000,
    pollMs: 300,
    ...(cli.io.signal && { signal: cli.io.signal }),
    onProgress: (event) => {
      switch (event.kind) {
        case 'packed':
          err(
            cli,
            errPaint.dim(
              `packed ${event.files} files (${Math.ceil(event.bytes / 1024)} KiB gzip'd)${event.skipped ? `, left out ${event.skipped} (credential-shaped or not regular files)` : ''}`,
            ),
          );
          return;
        case 'submitted':
          err(cli, errPaint.dim(`submitted job ${event.job} to ${base.value.origin}`));
          return;
        case 'retrying':
          err(cli, errPaint.dim(`verifier unavailable (${event.detail}); trying again in ${(event.inMs / 1000).toFixed(1)} s`));
          return;
        case 'waiting': {
          // A line when the state changes, then every 5 s.
          const report = `${event.state}:${Math.floor(event.seconds / 5)}`;
          if (report !== lastReport) err(cli, errPaint.dim(`job ${event.job}: ${event.state} (${event.seconds} s)`));
          lastReport = report;
          return;
        }
      }
    },
  }).finally(() => files.close());

  const accepted = outcomes.filter((o): o is Extract<RemoteOutcome, { kind: 'accepted' }> => o.kind === 'accepted');
  const recorded = new Map<string, StoredReceipt>();
  if (accepted.length > 0) {
    const ledger = await session.write(workspace);
    const sign = key.value ? signerFor(key.value) : undefined;
    for (const outcome of accepted) {
      recorded.set(
        outcome.check.id,
        await ledger.appendReceipt(localDraft(outcome, base.value.origin + base.value.pathname), outcome.manifest, { ...(sign && { sign }) }),
      );
    }
  }

  const p = paint(cli.color);
  const rows = outcomes.map((outcome) => {
    const receipt = recorded.get(outcome.check.id);
    return receipt
      ? { id: outcome.check.id, reason: receipt.body.reason, blocking: outcome.check.block, receipt, outcome }
      : {
          id: outcome.check.id,
          reason: outcome.kind === 'unknown' ? outcome.reason : ('remote_unverified' as const),
          blocking: outcome.check.block,
          receipt: undefined,
          outcome,
        };
  });
  // The engine's verify projection (outcome.ts) and its ok rule, for the words, the JSON and the exit code alike.
  const entries = rows.map((row) =>
    row.receipt
      ? ranEntry(row.outcome.check, row.receipt)
      : unrecordedEntry(row.outcome.check, row.reason, row.outcome.kind === 'unknown' ? row.outcome.detail : null),
  );
  const ok = runOk(entries, checks.length);
  if (!values.json) {
    for (const row of rows) {
      if (row.receipt) out(cli, `${renderVerifyLine(row.receipt, row.blocking, p)}  ${p.dim(`remote, verifier ${pinned.keyid.slice(0, 16)}`)}`);
      else
        out(
          cli,
          `${p.yellow('UNKNOWN')} ${row.id}  ${row.reason}: ${row.outcome.kind === 'unknown' ? row.outcome.detail : ''}\n  ${p.dim(explainReason(row.reason, row.id).meaning)}`,
        );
    }
    out(cli, renderSummary(entries, p));
    if (accepted.length > 0 && !trustedForStatus) {
      err(
        cli,
        `${errPaint.yellow('note:')} the key given with --pubkey is neither verifier_key in vouch.yaml nor in VOUCH_HOME/keys, so \`vouch status\` will not count these receipts until it is pinned there`,
      );
    }
  } else {
    // Plus what only a remote run has: its job and the verifier's receipt.
    json(cli, {
      ok,
      remote: base.value.origin + base.value.pathname,
      verifier: pinned.keyid,
      checks: entries.map((entry, i) => {
        const row = rows[i]!;
        return {
          ...entry,
          job: row.outcome.job,
          remote_receipt: row.outcome.kind === 'accepted' ? row.outcome.receiptId : null,
          sandbox: row.receipt?.body.service?.sandbox ?? null,
        };
      }),
    });
  }
  return ok ? EXIT.ok : EXIT.notOk;
}

/** The verifier's public key: --pubkey, else verifier_key in vouch.yaml; both given must agree. Never asked of the server. */
function pinnedKey(flag: string | undefined, fromSpec: string | null, home: string, cwd: string) {
  const specKey = fromSpec === null ? undefined : publicKeyFromHex(fromSpec);
  if (flag === undefined) {
    if (specKey) return specKey;
    return fail({
      code: 'usage',
      message: 'no verifier key is pinned: a remote receipt can only be accepted under a public key you hold, never one the server sends',
      where: 'vouch verify --remote',
      expected: '--pubkey HEX|PEM-FILE|NAME, or verifier_key: HEX in vouch.yaml',
      hint: "get the key from the server's operator out of band (`vouch keys export-public NAME --format hex` on the server)",
    });
  }
  const given = publicKeyArg(flag, home, cwd, '--pubkey');
  if (!given.ok) return fail(given.error);
  if (specKey && specKey.keyid !== given.value.publicKey.keyid) {
    return fail({
      code: 'usage',
      message: '--pubkey is not the verifier_key pinned in vouch.yaml',
      where: '--pubkey',
      expected: `key ${specKey.keyid.slice(0, 16)} (verifier_key)`,
      found: given.value.publicKey.keyid.slice(0, 16),
      hint: 'drop --pubkey to use verifier_key, or change verifier_key (and `vouch allow`)',
    });
  }
  return given.value.publicKey;
}
