import type { BoxState } from './box.js';
import type { SessionSummary } from './session-summary.js';

/** Why `vouch sessions --check` fails a session: stable codes, in its --json. */
export type SessionTrouble =
  /** Let through unverified after gate.max_blocks blocks (max_blocks). */
  | 'escaped'
  /** Its last stop was blocked: it ended (or is waiting) on a false "done". */
  | 'blocked'
  /** Tool calls on record and no stop ever seen: its hooks were switched off (disableAllHooks), or it is still working. */
  | 'stop_never_seen'
  /** Nothing of it on record at all: its hooks never ran in this workspace. */
  | 'unknown_session';

/**
 * What a CI job needs to know of a headless session: did it end on a stop
 * the gate allowed? An escaped session, one whose last stop was blocked,
 * and one whose stop the gate never saw all fail, so a false "done" that
 * `claude -p` reports as success still fails the job.
 */
export function sessionTrouble(summary: SessionSummary): SessionTrouble | null {
  if (summary.escaped) return 'escaped';
  if (!stopSeen(summary)) return 'stop_never_seen';
  if (summary.last === 'block') return 'blocked';
  if (summary.last === null) return 'unknown_session';
  return null;
}

/**
 * Whether the gate saw the session stop after its last tool call. Tool
 * calls after its last decision (or with none at all) mean the agent went
 * on working and its stop never reached the gate: hooks switched off
 * mid-session, or it is still working.
 */
export function stopSeen(summary: SessionSummary): boolean {
  const lastCall = summary.trail.reduce<string | null>((latest, entry) => (latest === null || entry.at > latest ? entry.at : latest), null);
  if (lastCall === null) return true;
  const lastStop = summary.decisions.reduce<string | null>((latest, entry) => (latest === null || entry.at > latest ? entry.at : latest), null);
  return lastStop !== null && lastStop >= lastCall;
}

/** A session as `vouch sessions` shows it: the summary, whether its stop was seen, and its box. */
export interface SessionView extends SessionSummary {
  /** false: tool calls on record after the last stop the gate saw, or with none (hooks switched off?). */
  readonly stop_seen: boolean;
  /** Whether the agent worked in the box at its first hook here; null when vouch has no record of it. */
  readonly box: BoxState | null;
}

export function sessionView(summary: SessionSummary, box: BoxState | null): SessionView {
  return { ...summary, stop_seen: stopSeen(summary), box };
}
