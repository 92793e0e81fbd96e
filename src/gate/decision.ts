import type { Reason, Status } from '../core/status.js';
import type { DispatchVerdict } from '../fleet/model.js';
import type { DispatchState } from '../fleet/states.js';
import type { OnStop, Tier } from '../spec/fields.js';

/**
 * Why the gate answered as it did. Stable codes, recorded in the ledger and
 * rendered in one exhaustive switch (render/gate.ts). None of the allow
 * reasons but `all_pass` says anything was verified.
 */
export type GateReason =
  // allow
  /** Every relevant blocking check is a fresh PASS. */
  | 'all_pass'
  /** Nothing this session changed is covered by a blocking check, and covered files match their receipts. */
  | 'nothing_relevant'
  /** The spec declares no blocking check at all, and the session changed nothing (with changes, it is `tier_uncovered`). */
  | 'no_blocking_checks'
  /** No vouch.yaml here and no vouch record of this session: nothing was promised. */
  | 'no_spec'
  /** A subagent changed files no blocking check at its tier covers: no verdict; its dispatch stays reported and holds the session's Stop. */
  | 'ungraded'
  // block
  /** Some relevant blocking check is not a fresh PASS. */
  | 'not_passing'
  /** vouch.yaml is gone, but this session was already gated by it. */
  | 'spec_missing'
  /** vouch.yaml cannot be read or is not a valid spec. */
  | 'spec_invalid'
  /** vouch.yaml is not allowed (new, or edited since it was allowed). */
  | 'spec_not_allowed'
  /** The trust record cannot be read. */
  | 'trust_unreadable'
  /** The session changed files, and no blocking check applies at this gate's tier (or the spec has none at all). */
  | 'tier_uncovered'
  /** The ledger holding this session's state cannot be used. */
  | 'ledger_unusable'
  /** The hook itself failed; a stop is never let through on an error. */
  | 'hook_error'
  /** A subagent stopped with no final message: it has not reported, and silence is not a claim. */
  | 'no_report'
  /** vouch.yaml changed since the subagent's dispatch pinned it: not graded against a spec it could have edited. */
  | 'pin_drift'
  /** A dispatch this session ordered is half-closed: reported, graded or contradicted, and never terminated. */
  | 'dispatches_unsettled'
  /** A file the spec protects differs from what it was at the session's first hook, whatever wrote it. */
  | 'protected_changed'
  /** The gate's own wiring (hook settings, the git hook, the trust record, trusted keys) changed during the session. */
  | 'wiring_changed'
  /** vouch's record of this session under VOUCH_HOME cannot be read: it was altered. */
  | 'session_record_damaged'
  // escaped
  /** Blocked max_blocks times in a row with no file change: let through, recorded as unverified. */
  | 'max_blocks';

/** One relevant check, as the gate judged it, with what an agent needs to act on it. */
export interface GateFinding {
  readonly id: string;
  readonly status: Status;
  readonly reason: Reason;
  readonly detail: string | null;
  readonly receipt: string | null;
  /** The last lines of the receipt's redacted output, when it did not pass. */
  readonly excerpt: string | null;
  /** The gate ran this check during this stop. */
  readonly ranNow: boolean;
  /** The gate meant to run this check but its time budget ran out first (or during it). */
  readonly budgetExhausted: boolean;
}

/** A dispatch the session ordered that is not terminated, as a stop sees it. */
export interface DispatchNote {
  readonly id: string;
  readonly state: DispatchState | 'damaged';
  readonly verdict: DispatchVerdict;
  readonly tier: Tier | null;
  /** Its prompt's first line, or what ran it. */
  readonly label: string;
  /** Still running (not reported yet, or its client says its agent runs): listed, never blocking. */
  readonly running: boolean;
}

export interface GateDecision {
  readonly kind: 'allow' | 'block' | 'escaped';
  readonly reason: GateReason;
  /** Workspace root, when there is one. */
  readonly workspace: string | null;
  /** The relevant blocking checks (empty when none was relevant). */
  readonly findings: readonly GateFinding[];
  readonly onStop: OnStop | null;
  readonly budgetSeconds: number | null;
  /** Consecutive blocks with no file change, this one included. */
  readonly blocks: number;
  readonly maxBlocks: number | null;
  /** One line of context: the spec problem, the error, the ledger entry of an escape. */
  readonly detail: string | null;
  /** Id of the ledger entry recording this decision; null when none was written. */
  readonly entry: string | null;
  /** Stop: the dispatches the session ordered that are not terminated. */
  readonly dispatches: readonly DispatchNote[];
  /** SubagentStop: the subagent's own dispatch. */
  readonly dispatch: DispatchNote | null;
}
