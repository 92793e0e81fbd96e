import type { Sha256 } from '../core/digest.js';
import type { GitState } from '../engine/git.js';
import type { Client } from '../clients/registry.js';
import type { SubjectEventBody } from '../ledger/events.js';
import type { Status, Reason } from '../core/status.js';
import type { Tier } from '../spec/fields.js';
import type { Claim } from './claim.js';
import type { DispatchState, DispatchVerdict } from '../core/dispatch-state.js';

/** Which front end wrote a transition. A label for the record, not an authentication. */
export type WriterActor = 'cli' | 'hook' | 'mcp';

/** The process that wrote a transition: who to ask, and proof that the checker is not the claimant. */
export interface Writer {
  readonly pid: number;
  /** Its parent: for a hook, the agent client that ran it. */
  readonly ppid: number;
  readonly actor: WriterActor;
  /** The agent client whose hook wrote it; null for the CLI and MCP. */
  readonly client: Client | null;
  readonly host: string;
}

/** Where a dispatch's prompt came from. */
export type PromptSource = 'flag' | 'file' | 'stdin' | 'not_in_payload';

/** A subagent captured by a client's hook. */
export interface AgentRef {
  readonly client: Client;
  readonly id: string;
  /** agent_type as the client named it (general-purpose, Explore...); null when absent. */
  readonly type: string | null;
}

/** What a dispatch will be graded by, frozen when it is ordered. */
export interface DispatchManifest {
  /** Every check that applies at the dispatch's tier (untiered ones, and its own tier's). */
  readonly checks: readonly { readonly id: string; readonly definition_digest: Sha256; readonly block: boolean }[];
  /** The workspace's git state when it was ordered; null outside git. */
  readonly git: GitState | null;
}

interface TransitionBody extends SubjectEventBody {
  readonly kind: 'dispatch';
  /** The state this transition enters. */
  readonly event: DispatchState;
  /** The state it leaves; null for the first. Checked against the record on every read. */
  readonly from: DispatchState | null;
  readonly writer: Writer;
  /** Why, in words. */
  readonly why: string;
}

/** The order: recorded before any work starts. */
export interface DispatchedBody extends TransitionBody {
  readonly event: 'dispatched';
  /** null when the prompt was never seen (a captured subagent: the client does not pass it to the hook). */
  readonly prompt: string | null;
  readonly prompt_sha256: Sha256 | null;
  readonly prompt_source: PromptSource;
  readonly tier: Tier;
  readonly tier_source: 'declared' | 'inferred';
  /** Why this tier: the flag, or the inference rule and the chain it read. */
  readonly tier_basis: string;
  /** The dispatch that ordered this one. */
  readonly parent: string | null;
  /** The task card this dispatch works on, as given. */
  readonly card: string | null;
  /** The agent session that ordered it (its Stop gate waits for it). */
  readonly session: string | null;
  readonly agent: AgentRef | null;
  /** SHA-256 of vouch.yaml in force when it was ordered; null when there was no valid spec. */
  readonly spec_sha256: Sha256 | null;
  /** The spec required signatures: an unsigned transition of this dispatch is then damaged. */
  readonly require_signature: boolean;
  readonly manifest: DispatchManifest;
}

/** The agent's claim. Its own words: context, never evidence. */
export interface ReportedBody extends TransitionBody {
  readonly event: 'reported';
  readonly claim: Claim;
  /** SHA-256 of the claim exactly as received (the file, the message). */
  readonly claim_sha256: Sha256;
  /** Through which door the claim came. */
  readonly via: 'cli' | 'mcp' | 'hook';
  /** The process the claim came from, when known (for a hook: the client running the agent). The checker must not be it. */
  readonly claimant_pid: number | null;
  /** The spawn prompt as the client's own transcript of the subagent recorded it, read at its stop; null when not read. */
  readonly transcript_prompt: { readonly text: string; readonly sha256: Sha256; readonly truncated: boolean } | null;
}

/** One blocking check as the checker saw it when it graded. */
export interface GradedCheck {
  readonly id: string;
  readonly status: Status;
  readonly reason: Reason;
  readonly receipt: string | null;
}

/** The checker's answer to a claim. */
export interface Grade {
  readonly tier: Tier;
  /** The spec it graded against: always the dispatch's pin (drift is refused, not graded). */
  readonly spec_sha256: Sha256;
  /**
   * own_writes: the checks covering what its agent wrote; whole_tier: every
   * blocking check of the tier; card_proof: the frozen proof of the card its
   * agent claimed, run by the gate (with the tier's checks on its writes).
   */
  readonly basis: 'own_writes' | 'whole_tier' | 'card_proof';
  /** The card whose proof graded it (basis card_proof). */
  readonly card?: string;
  readonly checks: readonly GradedCheck[];
}

export interface GradedBody extends TransitionBody {
  readonly event: 'verified' | 'contradicted';
  readonly grade: Grade;
}

export interface TerminatedBody extends TransitionBody {
  readonly event: 'terminated';
}

export type DispatchBody = DispatchedBody | ReportedBody | GradedBody | TerminatedBody;

/** A transition as the board and the report show it. */
export interface Transition {
  readonly seq: number;
  readonly id: string;
  readonly at: string;
  readonly from: DispatchState | null;
  readonly to: DispatchState;
  readonly writer: Writer;
  readonly why: string;
  readonly signed: boolean;
}

export type { DispatchVerdict } from '../core/dispatch-state.js';

/** A dispatch as its events say, folded. */
export interface Dispatch {
  readonly id: string;
  /** The last transition's state; `damaged` when the record cannot be believed (unless it was terminated since). */
  readonly state: DispatchState | 'damaged';
  /** The state the intact record reached: what a new transition leaves. */
  readonly lastState: DispatchState | null;
  /** The grade of the current claim; ungraded when none. */
  readonly verdict: DispatchVerdict;
  /** Why the record reads as damaged; null when intact. */
  readonly damage: string | null;
  /** The order; null when that event is missing or damaged. */
  readonly order: DispatchedBody | null;
  /** The latest claim. */
  readonly claim: ReportedBody | null;
  /** The grade of the latest claim, when it has one. */
  readonly grade: GradedBody | null;
  /** Every grade, oldest first. */
  readonly grades: readonly GradedBody[];
  readonly transitions: readonly Transition[];
  /** Events that could not be believed, in place in the trail: shown as damaged, never read. */
  readonly unreadable: readonly { readonly seq: number; readonly id: string; readonly why: string }[];
  /** Id of the newest event: a new transition is appended only after it (compare-and-append). */
  readonly lastEventId: string | null;
  readonly createdAt: string | null;
  readonly updatedAt: string | null;
}
