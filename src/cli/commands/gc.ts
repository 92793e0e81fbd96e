import { fail } from '../../core/problem.js';
import { integerFlag, parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { signingKeyFor } from '../../crypto/select.js';
import { signerFor } from '../../crypto/signature.js';
import { vouchHome } from '../../workspace/home.js';
import { NOTHING_REMOVED, type GcResult } from '../../ledger/ledger.js';
import { removeLogsOlderThan, removeReleasedLogs } from '../../logs/store.js';
import { refuseInAgentRun } from '../person-only.js';

export const help = `usage: vouch gc [--keep-days N] [--keep-per-check N] [--dry-run] [--json]

Removes old receipts and the agent trail entries (the hooks' untrusted
records of tool calls) the policy lets go: the spec's \`retention:\` (days,
default 30; per_check, default 200; log_days: whole logs older than that
go while their receipts stay), each flag overriding its part of it. The latest
receipt of every check is always kept, so no status changes; gate decisions
and card and dispatch events are never removed. The removal is itself recorded in the chain (how many, which
range, a digest of their hashes) so \`vouch audit\` can tell gc from tampering.
Manifests no receipt refers to any more are removed too, and so is the
stored log (.vouch/logs, see \`vouch show --log\`) of each removed receipt;
a log is removed only with the receipt it belongs to (its file names that
receipt), never while a kept receipt refers to it. When the workspace
has a signing key (signing_key in vouch.yaml or VOUCH_SIGNING_KEY), the gc
record is signed like a receipt.

Whatever the policy says, gc keeps what something still open decides on:
the receipts an open card's verdicts name and every later receipt of its
proof's checks (a FAIL after a PASS must still refuse the card), the
receipts an open dispatch's grades name, and the trail of a session not
seen stopping (its Stop has yet to judge what it touched). It says how
many entries it kept so. The gc record never reuses a position of the
chain, and \`vouch audit\` is intact after any gc.

  --keep-days N       remove receipts and trail entries older than N days (default: retention.days)
  --keep-per-check N  keep at most the N newest receipts of each check (default: retention.per_check)
  --dry-run           list what would go (seq, kind, check or session, id); remove and record nothing
  --json              {"ok", "policy", "removed", "trailRemoved", "manifestsRemoved", "logsRemoved", "gcEntryId", "retained"} (with --dry-run: "planned", the entries)

A person's \`vouch verify\` runs a bounded gc by this same policy by itself
once the ledger is over it by retention.auto entries (see vouch verify --help).

Refused inside an agent run (exit 4, agent_run): gc is a person's act, run
between agent sessions. An agent session during which the ledger records a
gc is blocked at its stop (person_act_in_session), whoever ran it.`;

const DAY_MS = 24 * 60 * 60 * 1000;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse(
    'gc',
    args,
    { json: { type: 'boolean' }, 'dry-run': { type: 'boolean' }, 'keep-days': { type: 'string' }, 'keep-per-check': { type: 'string' } },
    false,
  );
  // Removing receipts and every session's trail erases what the gate judges an agent by: a person's act.
  refuseInAgentRun(cli.io.env, 'vouch gc', 'record');
  const workspace = cli.session.workspace();
  const spec = await cli.session.spec(workspace);
  // The spec's policy (a person's, changed only through vouch allow), each flag overriding its part.
  const keepDays = integerFlag('gc', 'keep-days', values['keep-days'], 0) ?? spec.retention.days;
  const keepPerCheck = integerFlag('gc', 'keep-per-check', values['keep-per-check'], 1) ?? spec.retention.perCheck;
  const policy = { keepDays, keepPerCheck, logDays: spec.retention.logDays };
  const key = signingKeyFor(vouchHome(cli.io.env), cli.io.env, spec, workspace.root);
  if (!key.ok) return fail(key.error);
  const sign = key.value ? signerFor(key.value) : undefined;
  const ledger = await cli.session.read(workspace);
  const dryRun = values['dry-run'] === true;
  let result = NOTHING_REMOVED;
  if (ledger) {
    const { retainedForGc } = await import('../../retention/retained.js');
    const retain = await retainedForGc(ledger, vouchHome(cli.io.env));
    result = await ledger.gc({ now: new Date(), keepDays, keepPerCheck, ...(sign && { sign }), retain, dryRun });
  }
  if (dryRun) return planned(cli, result, values.json === true);
  // After the ledger's removal is committed: a crash in between leaves files no receipt names, never a receipt without its log.
  const now = Date.now();
  const logsRemoved =
    removeReleasedLogs(workspace.stateDir, result.releasedLogs ?? []) +
    (policy.logDays === null ? 0 : removeLogsOlderThan(workspace.stateDir, now - policy.logDays * DAY_MS));
  const { releasedLogs: _released, ...counts } = result;
  if (values.json) json(cli, { ok: true, policy, ...counts, retained: result.retained ?? 0, logsRemoved });
  else {
    out(cli, result.removed === 0 ? 'nothing to remove' : `removed ${removedText(result, logsRemoved)} (recorded as ${result.gcEntryId})`);
    if ((result.retained ?? 0) > 0) out(cli, retainedText(result.retained ?? 0));
  }
  return EXIT.ok;
}

function planned(cli: Cli, result: GcResult, asJson: boolean): number {
  const entries = result.planned ?? [];
  if (asJson) {
    json(cli, { ok: true, dryRun: true, removed: result.removed, trailRemoved: result.trailRemoved, retained: result.retained ?? 0, planned: entries });
    return EXIT.ok;
  }
  for (const entry of entries)
    out(cli, `seq ${entry.seq}  ${entry.kind === 'receipt' ? `receipt  ${entry.check_id ?? '?'}` : `trail    session ${entry.session ?? '?'}`}  ${entry.id}`);
  out(
    cli,
    entries.length === 0
      ? 'nothing would be removed (dry run)'
      : `${entries.length} ${entries.length === 1 ? 'entry' : 'entries'} would be removed (dry run: nothing removed)`,
  );
  if ((result.retained ?? 0) > 0) out(cli, retainedText(result.retained ?? 0));
  return EXIT.ok;
}

function retainedText(retained: number): string {
  return `kept ${retained} ${retained === 1 ? 'entry' : 'entries'} the policy would remove: an open card, an open dispatch or an unstopped session still needs ${retained === 1 ? 'it' : 'them'}`;
}

function removedText(result: GcResult, logsRemoved: number): string {
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const receipts = result.removed - result.trailRemoved;
  const parts = [count(receipts, 'receipt', 'receipts'), ...(result.trailRemoved > 0 ? [count(result.trailRemoved, 'trail entry', 'trail entries')] : [])];
  return `${parts.join(', ')}, ${count(result.manifestsRemoved, 'manifest', 'manifests')} and ${count(logsRemoved, 'log', 'logs')}`;
}
