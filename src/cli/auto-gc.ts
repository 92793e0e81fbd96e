import { agentRun } from '../clients/agent-run.js';
import { signingKeyFor } from '../crypto/select.js';
import { signerFor } from '../crypto/signature.js';
import { removeLogsOlderThan, removeReleasedLogs } from '../logs/store.js';
import type { Spec } from '../spec/model.js';
import type { Workspace } from '../workspace/find.js';
import { vouchHome } from '../workspace/home.js';
import type { Cli } from './io.js';

/** What `vouch verify --json` says of the automatic gc, when it did something or waited. */
export type AutoGcReport =
  | {
      readonly ran: true;
      readonly removed: number;
      readonly trail_removed: number;
      readonly retained: number;
      readonly deferred: number;
      readonly logs_removed: number;
      readonly gc_entry_id: string | null;
    }
  | { readonly ran: false; readonly why: 'session_active' | 'over_budget'; readonly detail: string };

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * After a person's `vouch verify`: the bounded automatic gc (retention/auto.ts)
 * when the ledger is over the spec's policy. Never inside an agent run: an
 * agent must not be the one deciding when the record it is judged by is
 * pruned (the markers can be stripped; the gc then lands in the chain like
 * any other and holds that agent's stop, person_act_in_session). A key that
 * cannot sign, or a ledger that cannot be opened, skips it: the verify's
 * own answer stands.
 */
export async function autoGcAfterVerify(cli: Cli, workspace: Workspace, spec: Spec): Promise<AutoGcReport | null> {
  if (spec.retention.auto <= 0 || agentRun(cli.io.env) !== null) return null;
  const home = vouchHome(cli.io.env);
  const key = signingKeyFor(home, cli.io.env, spec, workspace.root);
  if (!key.ok) return null;
  const ledger = await cli.session.read(workspace);
  if (!ledger) return null;
  const { autoGc } = await import('../retention/auto.js');
  const outcome = await autoGc(
    ledger,
    spec.checks.map((check) => check.id),
    { retention: spec.retention, home, now: new Date(), ...(key.value && { sign: signerFor(key.value) }) },
  );
  switch (outcome.kind) {
    case 'not_due':
      return null;
    case 'deferred':
      return { ran: false, why: outcome.why, detail: outcome.detail };
    case 'ran': {
      const result = outcome.result;
      // After the removal is committed, as `vouch gc` does: a crash in between leaves files no receipt names.
      const logs =
        removeReleasedLogs(workspace.stateDir, result.releasedLogs ?? []) +
        (spec.retention.logDays === null ? 0 : removeLogsOlderThan(workspace.stateDir, Date.now() - spec.retention.logDays * DAY_MS));
      return {
        ran: true,
        removed: result.removed,
        trail_removed: result.trailRemoved,
        retained: result.retained ?? 0,
        deferred: result.deferred ?? 0,
        logs_removed: logs,
        gc_entry_id: result.gcEntryId,
      };
    }
  }
}

/** One line for stderr: what the automatic gc did, or why it waited. */
export function autoGcLine(report: AutoGcReport): string {
  if (!report.ran) {
    return `vouch: the ledger is over retention: in vouch.yaml; the automatic gc waits (${report.detail}); run \`vouch gc\` between agent sessions`;
  }
  if (report.removed === 0)
    return `vouch: the ledger is over retention: in vouch.yaml; the automatic gc removed nothing (${report.retained} entries kept: an open card, dispatch or session still needs them)`;
  const more = report.deferred > 0 ? `; ${report.deferred} more next time` : '';
  return `vouch: automatic gc (retention: in vouch.yaml): removed ${report.removed} entries (${report.trail_removed} trail), ${report.logs_removed} logs, recorded as ${report.gc_entry_id ?? '?'}${more}`;
}
