import type { GateReason } from '../core/gate-reason.js';
import type { Reason, Status } from '../core/status.js';
import type { DispatchState, DispatchVerdict } from '../core/dispatch-state.js';
import type { OnStop, Tier } from '../spec/fields.js';

export type { GateReason } from '../core/gate-reason.js';

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
  /** A background runner of the gate's is still running this check (since this ISO time): the next stop picks up its result. */
  readonly runningSince: string | null;
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
