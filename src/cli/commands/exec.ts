import { realpathSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fail } from '../../core/problem.js';
import { execCommand } from '../../exec/exec.js';
import { receiptFile, receiptFileText, type ExecReceiptBody } from '../../exec/receipt.js';
import { ProtectedPaths } from '../../guard/protected.js';
import { configWiring, gitHookWiring } from '../../guard/wiring.js';
import { renderExecOutcome } from '../../render/exec.js';
import type { Sha256 } from '../../core/digest.js';
import { notAllowedWords, trustState } from '../../trust/trust.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { err, type Cli } from '../io.js';

export const help = `usage: vouch exec [--receipt FILE] -- CMD [ARG...]

Runs one command under the exec: policy of vouch.yaml, in a bubblewrap
sandbox: the host's tree read-only but exec.writable (default "."), what
vouches (vouch.yaml, .vouch/, the clients' settings, git's hooks,
VOUCH_HOME, protect: paths) read-only inside those, a private /tmp, no
network unless exec.network: true, exec.deny's programs hidden, killed
after exec.timeout seconds. The command line is read first, as the write
guard reads it (sh -c, wrappers and cd seen through): a denied program, a
network program under network: false, or a write to what vouches is
BLOCKED before it runs (exec.mode: enforce) or recorded and run (audit).
Every run appends an exec receipt to the ledger, signed with the
workspace's signing_key: argv, cwd, policy digest, decision, exit code,
stdout/stderr SHA-256, files written. The command's output passes through;
vouch's line goes to stderr: "VERIFIED exit N · receipt ID" or
"BLOCKED: ...". Needs the spec allowed; never runs a command unconfined.

  --receipt FILE  also write the receipt as a file (JSON: type, body, hash,
                  signature) that \`vouch verify-receipt FILE --key PUB\` checks

exit: the command's own code (124 when exec.timeout killed it); 77 BLOCKED;
2 usage, spec not allowed, a writable path that vouches, no bubblewrap`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const split = args.indexOf('--');
  const own = split < 0 ? args : args.slice(0, split);
  const argv = split < 0 ? [] : args.slice(split + 1);
  const { values, positionals } = parse('exec', own, { receipt: { type: 'string' } });
  if (positionals.length > 0 || argv.length === 0) {
    return fail({
      code: 'usage',
      message: positionals.length > 0 ? `the command comes after --, found ${JSON.stringify(positionals[0])} before it` : 'expected a command after --',
      where: 'vouch exec',
      hint: 'vouch exec -- npm test',
    });
  }
  const workspace = cli.session.workspace();
  const spec = await cli.session.spec(workspace);
  const trust = trustState(cli.session.home, workspace.root, spec.sha256);
  if (!trust.ok) return fail(trust.error);
  if (trust.value.kind !== 'allowed') {
    return fail({
      code: 'spec_not_allowed',
      message: `nothing was run: ${notAllowedWords(trust.value.kind).replace(/^vouch\.yaml/, workspace.specPath)}`,
      hint: 'its exec: policy decides what a command may do: a person reads vouch.yaml, then runs `vouch allow`',
    });
  }
  const env = cli.io.env;
  const root = workspace.root;
  const cwd = realpathSync(cli.io.cwd);
  const result = await execCommand({
    argv,
    cwd,
    root,
    policy: spec.exec,
    protect: spec.protect,
    env,
    place: {
      root,
      cwd,
      home: env.HOME,
      protect: new ProtectedPaths(spec.protect),
      wiring: { config: () => configWiring(root, env), gitHook: () => gitHookWiring(root) },
    },
    stdout: cli.data,
    stderr: cli.io.stderr,
    ...(cli.session.now && { now: cli.session.now }),
  });
  if (result.kind === 'refused') {
    const refusal = result.refusal;
    if (refusal.reason === 'sandbox_unavailable')
      return fail({
        code: 'sandbox_unavailable',
        message: `nothing was run: ${refusal.detail}`,
        hint: 'install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap) where user namespaces are allowed',
      });
    return fail({
      code: 'spec_invalid',
      message: `exec.writable[${refusal.index}] "${refusal.writable}" is, or is inside, ${refusal.vouches}: a command run through vouch exec could rewrite what vouches`,
      where: `${workspace.specPath} exec.writable[${refusal.index}]`,
      expected: 'writable paths beside what vouches (what vouches inside a writable path stays read-only)',
      hint: 'remove it from exec.writable, then `vouch allow`',
    });
  }
  const signer = await cli.session.signer(workspace, spec);
  if (!signer.ok) return fail(signer.error);
  const ledger = await cli.session.write(workspace);
  const stored = await ledger.appendEvent(result.body, signer.value);
  if (values.receipt !== undefined) {
    const [entry] = await ledger.events<ExecReceiptBody & { readonly prev_hash: Sha256 | null }>('exec', result.body.id);
    if (entry === undefined || !entry.intact)
      return fail({ code: 'ledger_corrupt', message: 'the exec receipt just appended cannot be read back intact', where: workspace.stateDir });
    const path = resolve(cli.io.cwd, values.receipt);
    try {
      writeFileSync(path, receiptFileText(receiptFile(entry)));
    } catch (error) {
      return fail({ code: 'write_failed', message: `cannot write the receipt: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, where: path });
    }
  }
  err(cli, renderExecOutcome(result.body, stored.signature !== null));
  if (result.body.decision === 'BLOCKED') return EXIT.execBlocked;
  return result.body.exit_code ?? EXIT.execBlocked;
}
