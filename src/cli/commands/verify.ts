import { fail } from '../../core/problem.js';
import { paint } from '../../render/color.js';
import { Progress } from '../../render/progress.js';
import { RunningLabel } from '../../render/running-label.js';
import { outputTail, renderVerifyLine, renderWithheld } from '../../render/receipt-line.js';
import { Heartbeat, heartbeatInterval } from '../../render/heartbeat.js';
import { receiptFailureLines } from '../../logs/failure-lines.js';
import { freshEntry } from '../../engine/outcome.js';
import type { CheckStatus } from '../../engine/status.js';
import { answerVerify, verifyEntry } from '../../engine/verify-answer.js';
import type { CheckDef } from '../../spec/model.js';
import { renderSummary } from '../../render/status.js';
import { checksAtTier, selectChecks } from '../../spec/select.js';
import { TIERS, type Tier } from '../../spec/fields.js';
import { integerFlag, parse } from '../args.js';
import { EXIT } from '../exit.js';
import { notAllowedWords } from '../../trust/trust.js';
import { err, json, out, type Cli } from '../io.js';
import { enterWorkspace } from '../workspace-dir.js';
import { changedSince } from '../../engine/git-since.js';
import { scopeMatcher } from '../../scope/covers.js';

export const help = `usage: vouch verify [ID... | --tier T] [--stale [--rerun-failed]] [--since REF] [-j N] [--json]
       vouch verify [ID... | --tier T] --remote URL [--pubkey HEX|PEM|NAME] [--token-env NAME]
                    [--insecure-loopback] [--wait SECONDS] [--json]

Runs the named checks (default: all), side by side, exactly as vouch.yaml
declares them, and appends one receipt per run to the ledger. Nothing runs
unless this exact vouch.yaml was allowed (\`vouch allow\`).

  -j N, --jobs N  run at most N checks at once (default: one per core, at
           most 4; -j 1 runs them one after another, in the order given).
           A check with \`serial: true\` in vouch.yaml never runs beside
           another (for checks that write the same files). Each check's
           lines are printed whole when it ends, never mixed with another's

  --json   one object on stdout: {"ok", "checks": [{"id", "status", "reason",
           "blocking", "receipt", "detail", "exit_code", "duration_ms"}]}
           (a check that never started because vouch was stopped first:
           UNKNOWN, "interrupted", "receipt": null; a check that ran and
           did not pass in a way that reads like its environment's fault
           (command not found, certificate, DNS or connection errors, a
           variable said to be missing) adds "withheld_env": the names,
           never the values, of your environment variables it was not given)
  --tier T the blocking checks that apply at tier T (leaf, lane,
           coordinator, bridge): those of that tier and the untiered ones,
           what the gate grades a stop at that tier by; not with IDs
  --stale  run only the selected checks that are not a fresh PASS: a PASS
           whose files and definition are unchanged (what \`vouch status\`
           shows as PASS) is not run again, nor is a FAIL whose files,
           definition and pins are those it failed on (it would fail
           again; it still counts: exit 1). With nothing to run it says so,
           names them, and exits 0 when every one is a PASS. --json adds
           "fresh": [{"id", "status", "blocking", "receipt", "recorded_at"}]
  --rerun-failed  with --stale: run the unchanged FAILs too
  --since REF  only the selected checks whose scope holds a file that
           differs between REF (a commit, branch or tag) and the work tree,
           untracked files included (git diff REF, run without the
           repository's config). Nothing selected: says so, runs nothing,
           grades nothing (exit 1). --json adds "since": {"ref", "changed",
           "selected"}

A check gets a small fixed environment (PATH, HOME, USER, LOGNAME, SHELL,
locale, TZ, temp dirs, certificate-authority paths such as
NODE_EXTRA_CA_CERTS) plus the names its \`env:\` lists, and a fresh, empty
PYTHONPYCACHEPREFIX (Python compiles the sources, never a .pyc left in the
tree); when it does not pass and its output reads like the environment's
fault (a command not found, a certificate, DNS or connection error, a
variable said to be missing), vouch names the variables it was not given,
so you can list one.

While a check runs, stderr shows which and for how long: on a terminal, one
line rewritten in place; otherwise (a log, a pipe, CI) a line every 30 s,
"vouch: tests still running, 2m30s" (VOUCH_PROGRESS_INTERVAL_MS sets the
interval; it exists for tests).

Every run's whole output is stored beside the ledger, redacted and
compressed (\`vouch show ID --log\`). A check that does not pass shows its
reason, up to 20 lines from anywhere in that output that look like where it
failed ("not ok", "FAIL", "Error", "error:", "✗", "×", "Traceback",
"panicked", ...), the last lines of its output, and the command that prints
the rest.
Stopped (Ctrl-C), it says how many of the selected checks ran and which
never started; nothing is recorded for those.

Afterwards, outside an agent run, when the ledger is over vouch.yaml's
retention: policy by at least retention.auto entries (default 100; 0: never),
verify runs the automatic gc: what \`vouch gc\` would remove, at most 2000
entries (the oldest first), keeping what an open card, an open dispatch or
an unstopped session needs, recorded like a gc. It waits while an agent
session not seen stopping wrote to the ledger in the last hour (its stop
would be held, person_act_in_session). stderr says what it did or why it
waited; --json adds "auto_gc".

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
    stale: { type: 'boolean' },
    'rerun-failed': { type: 'boolean' },
    since: { type: 'string' },
    tier: { type: 'string' },
    jobs: { type: 'string', short: 'j' },
  });
  const tier = tierFlag(values.tier, positionals);
  if (values.remote !== undefined && values.stale) {
    return fail({
      code: 'usage',
      message: '--stale is not used with --remote: the verifier runs every check it is sent',
      where: 'vouch verify',
      hint: 'run `vouch verify --stale` locally, or name the checks to send',
    });
  }
  if (values['rerun-failed'] && !values.stale) {
    return fail({
      code: 'usage',
      message: '--rerun-failed is used only with --stale',
      where: 'vouch verify',
      hint: 'without --stale every selected check runs, failed or not',
    });
  }
  if (values.remote !== undefined && values.since !== undefined) {
    return fail({ code: 'usage', message: '--since is not used with --remote', where: 'vouch verify', hint: 'name the checks to send' });
  }
  if (values.remote !== undefined && values.jobs !== undefined) {
    return fail({
      code: 'usage',
      message: '--jobs (-j) is not used with --remote: the verifier decides how its job runs',
      where: 'vouch verify',
      hint: 'drop -j, or run the checks locally',
    });
  }
  if (values.remote !== undefined) {
    const { runRemote } = await import('./verify-remote.js');
    const ids = tier === undefined ? positionals : checksAtTier((await cli.session.spec(cli.session.workspace())).checks, tier).map((check) => check.id);
    return runRemote(cli, { ...values, remote: values.remote }, ids);
  }
  const remoteOnly = (['pubkey', 'token-env', 'insecure-loopback', 'wait'] as const).find((flag) => values[flag] !== undefined);
  const jobs = integerFlag('verify', 'jobs', values.jobs, 1);
  if (remoteOnly) return fail({ code: 'usage', message: `--${remoteOnly} is used only with --remote URL`, where: 'vouch verify' });
  const session = cli.session;
  const workspace = session.workspace();
  const spec = await session.spec(workspace);
  const selected = tier === undefined ? selectChecks(spec, positionals) : checksAtTier(spec.checks, tier);
  if (selected.length === 0)
    return fail({
      code: 'usage',
      message: `no blocking check applies at tier ${tier ?? ''}`,
      where: 'vouch verify --tier',
      hint: 'give checks a `tier:` in vouch.yaml, or leave it out (an untiered check applies at every tier)',
    });
  const since = values.since === undefined ? undefined : await changedScopes(workspace.root, values.since, selected);
  const checks = since?.checks ?? selected;
  if (since !== undefined && checks.length === 0) {
    if (values.json) json(cli, { ok: false, checks: [], since: since.json });
    else
      out(
        cli,
        `nothing run: no selected check's scope changed since ${values.since} (${since.json.changed} path${since.json.changed === 1 ? '' : 's'} changed); nothing was graded`,
      );
    return EXIT.notOk;
  }
  const errPaint = paint(cli.color && cli.io.stderrIsTTY);
  // A terminal gets a self-rewriting line; a log or pipe a line every interval (heartbeat.ts).
  const progress = cli.io.stderrIsTTY ? new Progress(cli.io.stderr, errPaint) : new Heartbeat(cli.io.stderr, heartbeatInterval(cli.io.env));
  const p = paint(cli.color);

  const ctx = session.engine(workspace, spec, 'cli', { cwdIsRoot: enterWorkspace(workspace) });
  const running = new RunningLabel();
  let answer;
  try {
    answer = await answerVerify(ctx, checks, {
      openLedger: () => session.write(workspace),
      ...(values.stale && { stale: { rerunFailed: values['rerun-failed'] === true, openReader: () => session.read(workspace) } }),
      ...(jobs !== undefined && { jobs }),
      ...(cli.io.signal && { signal: cli.io.signal }),
      onEvent: (event) => {
        const label = running.see(event);
        // Each check's lines are written whole when it ends: side by side, the output of one never cuts into another's.
        progress.stop();
        if (event.kind === 'check_finished' && !values.json) {
          const failures = receiptFailureLines(workspace.stateDir, event.receipt, new Set(outputTail(event.receipt)));
          out(cli, renderVerifyLine(event.receipt, event.check.block, p, failures));
          const names = verifyEntry(ctx, event.check, event.receipt).withheld_env;
          const hint = names && renderWithheld(event.check.id, names, p);
          if (hint) out(cli, hint);
        }
        if (label !== null) progress.start(label, running.since());
      },
    });
  } finally {
    progress.stop();
  }

  if (answer.kind === 'trust_error') return fail(answer.problem);
  const fresh = answer.fresh;
  if (answer.trust !== 'allowed') {
    err(
      cli,
      `${errPaint.red('vouch:')} nothing was run: ${notAllowedWords(answer.trust).replace(/^vouch\.yaml/, workspace.specPath)}.\n` +
        `  ${errPaint.cyan('hint:')} read it (it decides what runs on this machine), then run \`vouch allow\``,
    );
    if (values.json) json(cli, { ok: false, checks: answer.checks });
    return EXIT.notOk;
  }
  if (values.stale && answer.checks.length === 0) {
    if (values.json) json(cli, { ok: answer.ok, checks: [], fresh: fresh.map(freshEntry), ...(since && { since: since.json }) });
    else out(cli, `nothing needed running: ${freshWords(fresh)}`);
    return answer.ok ? EXIT.ok : EXIT.notOk;
  }
  // A person's verify prunes a ledger that is over its policy (auto-gc.ts); never inside an agent run.
  const { autoGcAfterVerify, autoGcLine } = await import('../auto-gc.js');
  const autoGc = await autoGcAfterVerify(cli, workspace, spec);
  if (autoGc) err(cli, autoGcLine(autoGc));
  if (values.json) {
    json(cli, {
      ok: answer.ok,
      checks: answer.checks,
      ...(values.stale && { fresh: fresh.map(freshEntry) }),
      ...(since && { since: since.json }),
      ...(autoGc && { auto_gc: autoGc }),
    });
  } else {
    if (answer.notStarted.length > 0) {
      const ran = answer.checks.length - answer.notStarted.length;
      err(
        cli,
        `${errPaint.yellow('vouch:')} stopped: ${ran} of ${answer.checks.length} selected checks ran; not started (nothing recorded): ${answer.notStarted.join(', ')}`,
      );
    }
    if (fresh.length > 0) out(cli, p.dim(`not run, ${freshWords(fresh)}`));
    out(cli, renderSummary([...fresh, ...answer.checks], p));
  }
  return answer.ok ? EXIT.ok : EXIT.notOk;
}

/** --tier's value, checked: one of the tiers, and never beside check ids. */
function tierFlag(value: string | undefined, ids: readonly string[]): Tier | undefined {
  if (value === undefined) return undefined;
  if (!(TIERS as readonly string[]).includes(value)) {
    return fail({ code: 'usage', message: `unknown tier "${value}"`, where: 'vouch verify --tier', expected: `one of: ${TIERS.join(', ')}`, found: value });
  }
  if (ids.length > 0)
    return fail({
      code: 'usage',
      message: '--tier selects the checks itself: give check ids or --tier, not both',
      where: 'vouch verify',
      found: ids.join(' '),
    });
  return value as Tier;
}

function freshWords(fresh: readonly CheckStatus[]): string {
  if (fresh.length === 0) return 'no check selected';
  const passes = fresh.filter((s) => s.status === 'PASS').map((s) => s.id);
  const fails = fresh.filter((s) => s.status !== 'PASS').map((s) => s.id);
  return [
    passes.length > 0 ? `fresh PASS (files and definition unchanged since it passed): ${passes.join(', ')}` : '',
    fails.length > 0 ? `unchanged FAIL (files, definition and pins as when it failed; --rerun-failed runs it): ${fails.join(', ')}` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** --since REF: the selected checks whose scope holds a path that differs between REF and the work tree. */
async function changedScopes(
  root: string,
  ref: string,
  checks: readonly CheckDef[],
): Promise<{ checks: CheckDef[]; json: { ref: string; changed: number; selected: string[] } }> {
  const changed = await changedSince(root, ref);
  if (changed.kind !== 'ok') {
    return fail({
      code: 'usage',
      message:
        changed.kind === 'no_git' ? `--since needs a git work tree; ${root} is not in one (or git is not installed)` : `--since: "${ref}" names no commit here`,
      where: 'vouch verify --since',
      expected: 'a commit, branch or tag of this repository',
      found: ref,
      hint: 'try `git log --oneline` for a commit to compare with',
    });
  }
  const picked = checks.filter((check) => {
    const inScope = scopeMatcher(check);
    return changed.paths.some(inScope);
  });
  return { checks: picked, json: { ref, changed: changed.paths.length, selected: picked.map((c) => c.id) } };
}
