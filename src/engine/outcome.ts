import type { Reason, Status, Verdict } from '../core/status.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import type { CheckDef } from '../spec/model.js';
import type { CheckStatus } from './status.js';

/*
 * What a verify or a status answers with, as data: one projection for the
 * CLI's --json, the MCP tools and `verify --remote`, and the one rule that
 * says whether the answer is ok. Renderers turn these into words.
 */

/**
 * The verdict over a selection: every selected blocking check PASS. When
 * only advisory checks were selected, they are what is judged: a selection
 * with nothing graded is never a pass.
 */
export function allPass(statuses: readonly Pick<CheckStatus, 'status' | 'blocking'>[]): boolean {
  const blocking = statuses.filter((s) => s.blocking);
  const judged = blocking.length > 0 ? blocking : statuses;
  return judged.length > 0 && judged.every((s) => s.status === 'PASS');
}

/** A run is ok when every selected check ran (none cut short by a stop) and the selection passes. */
export function runOk(entries: readonly { readonly status: Status; readonly blocking: boolean; readonly receipt: string | null }[], selected: number): boolean {
  return entries.length === selected && entries.every((e) => e.receipt !== null) && allPass(entries);
}

/** What a PASS of the check proves, as published: redacted when the spec was loaded (spec/normalize.ts), since a default sentence quotes the command and a command can carry a secret. */
function provesOf(check: Pick<CheckDef, 'proves'>): string {
  return check.proves;
}

/** One check's status as --json and MCP give it: the published fields only, never the engine's own (fresh, fingerprint). */
export function statusEntry(s: CheckStatus, check: Pick<CheckDef, 'proves'>) {
  return {
    id: s.id,
    status: s.status,
    reason: s.reason,
    blocking: s.blocking,
    receipt: s.receipt,
    detail: s.detail,
    recorded_at: s.recorded_at,
    ...(s.changed && { changed: s.changed }),
    ...(s.verifier && { verifier: s.verifier }),
    ...(s.agentRun && { agent_run: s.agentRun }),
    proves: provesOf(check),
  };
}

/** One check of a verify answer. */
export interface VerifyEntry {
  readonly id: string;
  /** A verify answers with what the run found (or UNKNOWN when it made no receipt); never STALE. */
  readonly status: Verdict;
  readonly reason: Reason;
  readonly blocking: boolean;
  /** The receipt recorded; null when none was (not started, not allowed, refused remotely). */
  readonly receipt: string | null;
  readonly detail: string | null;
  readonly exit_code: number | null;
  readonly duration_ms: number | null;
  readonly proves: string;
  /**
   * For a check that ran and did not pass: the caller's environment variables
   * it was not given (names only, never values; see runner/env.ts).
   */
  readonly withheld_env?: readonly string[];
}

/** A check that ran: its receipt's verdict. */
export function ranEntry(check: CheckDef, receipt: StoredReceipt): VerifyEntry {
  const b = receipt.body;
  return {
    id: check.id,
    status: b.verdict,
    reason: b.reason,
    blocking: check.block,
    receipt: b.id,
    detail: b.detail,
    exit_code: b.exit_code,
    duration_ms: b.duration_ms,
    proves: provesOf(check),
  };
}

/** A check with no receipt from this run, and why. */
export function unrecordedEntry(check: CheckDef, reason: Reason, detail: string | null): VerifyEntry {
  return { id: check.id, status: 'UNKNOWN', reason, blocking: check.block, receipt: null, detail, exit_code: null, duration_ms: null, proves: provesOf(check) };
}

/**
 * What `verify --stale` leaves out: the checks whose status is PASS, and
 * (unless `rerunFailed`) those whose latest receipt is a FAIL on the very
 * state it failed on (`fresh`: same files, definition and pins; running it
 * again would only say FAIL again). The status rule already says a verdict
 * holds only while the check's files, definition and pins are unchanged
 * (anything else is STALE or UNKNOWN), so this adds no rule of its own. The
 * FAILs left out still count in the verdict over the selection.
 */
export function splitFresh(
  checks: readonly CheckDef[],
  statuses: readonly CheckStatus[],
  options: { readonly rerunFailed?: boolean } = {},
): { fresh: CheckStatus[]; toRun: CheckDef[] } {
  const fresh = statuses.filter((s) => s.status === 'PASS' || (s.status === 'FAIL' && s.fresh === true && options.rerunFailed !== true));
  const freshIds = new Set(fresh.map((s) => s.id));
  return { fresh, toRun: checks.filter((c) => !freshIds.has(c.id)) };
}

/** A fresh PASS (or unchanged FAIL) that `verify --stale` did not run, as its --json lists it. */
export function freshEntry(s: CheckStatus) {
  return { id: s.id, status: s.status, blocking: s.blocking, receipt: s.receipt, recorded_at: s.recorded_at, ...(s.agentRun && { agent_run: s.agentRun }) };
}
