import { fail } from '../../core/problem.js';
import type { Ledger } from '../../ledger/ledger.js';
import { verifyChecks } from '../../engine/verify.js';
import { paint } from '../../render/color.js';
import { Progress } from '../../render/progress.js';
import { renderVerifyLine } from '../../render/receipt-line.js';
import { allPass, renderSummary } from '../../render/status.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { err, json, out, type Cli } from '../io.js';
import { engineContext, enterWorkspace, ledgerOf, openLedgerForWrite, selectChecks, specForRun, workspaceOf } from '../workspace-session.js';

export const help = `usage: vouch verify [ID...] [--json]
       vouch verify [ID...] --remote URL [--pubkey HEX|PEM|NAME] [--token-env NAME]
                    [--insecure-loopback] [--wait SECONDS] [--json]

Runs the named checks (default: all) one after another, exactly as vouch.yaml
declares them, and appends one receipt per run to the ledger. Nothing runs
unless this exact vouch.yaml was allowed (\`vouch allow\`).

  --json   one object on stdout: {"ok", "checks": [{"id", "status", "reason",
           "blocking", "receipt", "detail", "exit_code", "duration_ms"}]}

While a check runs, stderr shows which and for how long (on a terminal).

--remote URL runs the checks on a verifier service (\`vouch serve\`) instead:
it packs vouch.yaml, the git-tracked files and the checks' declared sources
and tests (never credential-shaped files), submits them with the token from
VOUCH_TOKEN (or --token-env NAME), waits (progress on stderr), and accepts a
receipt only if it is signed by the pinned key (--pubkey: 64 hex, a PEM or
hex file, or a key name in VOUCH_HOME/keys; default verifier_key in
vouch.yaml; never fetched from the server) and binds to this spec, this
check, these files and the fresh nonce sent with the job (a receipt
replayed from another job is refused). Accepted receipts are recorded in the local ledger,
marked with the verifier's key id. https:// only; http:// only to a loopback
address with --insecure-loopback. Redirects are refused. Anything that does
not verify, and a server that cannot be reached, is UNKNOWN (exit 1):
nothing runs locally in its place. --wait SECONDS bounds the wait for the
job (default: the sum of the checks' timeouts plus 600); a 5xx, a refused or
reset connection is tried again within it, with growing pauses. --json adds
"remote", "verifier" and per check "job", "remote_receipt" and "sandbox".
exit: 0 every selected blocking check PASS, 1 otherwise, 2 usage/spec/ledger problem`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('verify', args, {
    json: { type: 'boolean' },
    remote: { type: 'string' },
    pubkey: { type: 'string' },
    'token-env': { type: 'string' },
    'insecure-loopback': { type: 'boolean' },
    wait: { type: 'string' },
  });
  if (values.remote !== undefined) {
    const { runRemote } = await import('./verify-remote.js');
    return runRemote(cli, { ...values, remote: values.remote }, positionals);
  }
  const remoteOnly = (['pubkey', 'token-env', 'insecure-loopback', 'wait'] as const).find((flag) => values[flag] !== undefined);
  if (remoteOnly) return fail({ code: 'usage', message: `--${remoteOnly} is used only with --remote URL`, where: 'vouch verify' });
  const workspace = workspaceOf(cli);
  const spec = await specForRun(workspace, cli);
  const checks = selectChecks(spec, positionals);
  const errPaint = paint(cli.color && cli.io.stderrIsTTY);
  const progress = cli.io.stderrIsTTY ? new Progress(cli.io.stderr, errPaint) : undefined;
  const p = paint(cli.color);

  let result;
  const opened: { ledger?: Ledger } = {};
  try {
    const at = ledgerOf(cli.io.env, workspace, spec);
    const ctx = { ...engineContext(cli, workspace, spec), cwdIsRoot: enterWorkspace(workspace) };
    result = await verifyChecks(ctx, checks, {
      openLedger: () => (opened.ledger = openLedgerForWrite(at)),
      ...(cli.io.signal && { signal: cli.io.signal }),
      onEvent: (event) => {
        if (event.kind === 'check_started') {
          progress?.start(`${event.check.id}${event.total > 1 ? ` (${event.index + 1}/${event.total})` : ''}`);
        } else {
          progress?.stop();
          if (!values.json) out(cli, renderVerifyLine(event.receipt, event.check.block, p));
        }
      },
    });
  } finally {
    progress?.stop();
    await opened.ledger?.close();
  }

  if (result.kind === 'trust_error') return fail(result.problem);
  if (result.kind === 'not_allowed') {
    err(
      cli,
      `${errPaint.red('vouch:')} nothing was run: ${workspace.specPath} ${result.trust === 'changed' ? 'changed since it was allowed' : 'was never allowed in this workspace'}.\n` +
        `  ${errPaint.cyan('hint:')} read it (it decides what runs on this machine), then run \`vouch allow\``,
    );
    if (values.json) {
      json(cli, {
        ok: false,
        checks: checks.map((c) => ({ id: c.id, status: 'UNKNOWN', reason: 'spec_not_allowed', blocking: c.block, receipt: null, detail: null })),
      });
    }
    return EXIT.notOk;
  }

  const rows = result.receipts.map((receipt) => {
    const check = checks.find((c) => c.id === receipt.body.check_id)!;
    return { receipt, id: check.id, status: receipt.body.verdict, reason: receipt.body.reason, blocking: check.block };
  });
  if (!values.json) out(cli, renderSummary(rows, p));
  if (values.json) {
    json(cli, {
      ok: allPass(rows) && rows.length === checks.length,
      checks: rows.map(({ receipt, blocking }) => ({
        id: receipt.body.check_id,
        status: receipt.body.verdict,
        reason: receipt.body.reason,
        blocking,
        receipt: receipt.body.id,
        detail: receipt.body.detail,
        exit_code: receipt.body.exit_code,
        duration_ms: receipt.body.duration_ms,
      })),
    });
  }
  return allPass(rows) && rows.length === checks.length ? EXIT.ok : EXIT.notOk;
}
