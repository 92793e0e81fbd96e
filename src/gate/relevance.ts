import { checksAtTier } from '../spec/select.js';
import { digestJson, type Sha256 } from '../core/digest.js';
import type { Reason } from '../core/status.js';
import type { CheckStatus } from '../engine/status.js';
import type { CheckDef } from '../spec/model.js';
import type { Tier } from '../spec/fields.js';
import { scopeMatcher } from '../scope/covers.js';

/** The tier a stop is graded at: the session's own agent is the bridge, a subagent a lane. */
export function tierOf(event: 'Stop' | 'SubagentStop'): Tier {
  return event === 'SubagentStop' ? 'lane' : 'bridge';
}

/** Blocking checks that apply at a tier: untiered ones apply everywhere. */
export function candidatesAt(checks: readonly CheckDef[], tier: Tier): CheckDef[] {
  return checksAtTier(checks, tier);
}

export interface SessionChanges {
  /** Workspace-relative paths the session reported writing. */
  readonly touched: ReadonlySet<string>;
  /** It ran calls that may have written files they do not name (shell commands). */
  readonly opaque: boolean;
  /**
   * A subagent's stop: drift in the working tree counts only when its own
   * calls could have caused it; its parent's edits are its parent's stop.
   */
  readonly ownWritesOnly: boolean;
  /**
   * When the session's first hook ran in this workspace (ISO time), or null
   * when unknown. A check with a receipt recorded since then is the
   * session's business whatever it shows: a FAIL the agent recorded after an
   * edit the trail could not see must not read as "nothing relevant", and a
   * PASS it recorded is run again by the gate.
   */
  readonly since: string | null;
}

/**
 * Statuses that say a file deciding what the check runs is not what the
 * person allowed (its program, a tool config, an input): drift in the
 * working tree, like STALE, whatever wrote it (an opaque `sed -i` the trail
 * cannot name).
 */
const PIN_DRIFT: ReadonlySet<Reason> = new Set<Reason>(['executable_changed', 'tool_config_changed', 'input_changed']);

/**
 * A check is affected by a session when the session wrote a path in its
 * scope, when its covered files no longer match its receipt (the working
 * tree against the last receipt) or what it runs is not as allowed, when
 * its latest receipt was recorded during the session, or when it never ran
 * here (or only under other pins than those in force) and the session may
 * have written something. An affected check that is not a fresh PASS is
 * owed before the agent may stop. A failure the session did not touch is
 * someone else's, not this stop's.
 */
export function isAffected(check: CheckDef, status: CheckStatus, changes: SessionChanges): boolean {
  const covers = scopeMatcher(check);
  for (const path of changes.touched) if (covers(path)) return true;
  const drifted = status.status === 'STALE' || PIN_DRIFT.has(status.reason);
  // A receipt made under other pins than those in force says nothing here: as if the check never ran.
  const neverRan = status.reason === 'no_receipt' || status.reason === 'pins_mismatch';
  const recordedSince = changes.since !== null && status.recorded_at !== null && status.recorded_at >= changes.since;
  if (changes.ownWritesOnly) return changes.opaque && (drifted || neverRan || recordedSince);
  if (recordedSince) return true;
  return drifted || (neverRan && changes.opaque);
}

/**
 * One digest of the files every candidate check covers, as they are now
 * (statuses computed with `everyFingerprint`, in one walk of the tree).
 * Equal digests between two stops mean no covered file changed in between,
 * which is what "blocked again with no file change" compares.
 */
export function treeDigest(checks: readonly CheckDef[], statuses: readonly CheckStatus[]): Sha256 {
  return digestJson(
    checks.map((check, i) => {
      const fingerprint = statuses[i]?.fingerprint;
      if (fingerprint === undefined) throw new Error(`bug: no fingerprint in the status of ${check.id}`);
      return [check.id, fingerprint];
    }),
  );
}
