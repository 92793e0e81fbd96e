import type { Sha256 } from '../core/digest.js';
import type { Reason, Verdict } from '../core/status.js';
import type { SubjectEventBody } from '../ledger/events.js';
import type { CheckDef } from '../spec/model.js';

/**
 * Who acts on a card. A label for the record and for the rules of who may
 * do what, not an authentication: see roles.ts for where it comes from.
 */
export const ROLES = ['worker', 'verifier', 'coordinator', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/** proof: any role may verify and close. independent: the PASS must come from, and the close be made by, a verifier or coordinator. */
export type VerifyMode = 'proof' | 'independent';

/** Who wrote an event, as far as vouch can tell. */
export interface CardActor {
  readonly role: Role;
  /**
   * Where the role came from: VOUCH_ROLE, the default (owner for a person,
   * worker inside an agent run), or the gate: at a card worker's
   * SubagentStop the hook runs the frozen proof as the card's verifier.
   */
  readonly role_from: 'VOUCH_ROLE' | 'default' | 'gate';
  /** The agent client whose run this was (claude-code, codex, ...), null for a person at a terminal. */
  readonly agent: string | null;
  /** The front end: the CLI, the MCP server, or a client's hook (a worker stopped by its budget, the gate at its stop). */
  readonly via: 'cli' | 'mcp' | 'hook';
}

/** Settings of the allowed spec a proof was frozen from, applied whenever the proof runs. */
export interface ProofPolicy {
  /** SHA-256 of the allowed vouch.yaml the proof was taken from. */
  readonly spec_sha256: Sha256;
  readonly excerpt_bytes: number;
  readonly signing_key: string | null;
  readonly require_signature: boolean;
}

/** The proof of a card, frozen when it opens: nothing but a recorded decision changes it. */
export type ProofSnapshot =
  | {
      readonly kind: 'checks';
      readonly policy: ProofPolicy;
      /** The full definitions of the checks as the allowed spec declared them at open. */
      readonly checks: readonly CheckDef[];
      /** Digest of the whole snapshot (kind, policy, every definition). */
      readonly digest: Sha256;
    }
  | {
      readonly kind: 'script';
      readonly policy: ProofPolicy;
      /** The script's file name under .vouch/cards/<card>/. */
      readonly name: string;
      /** Workspace-relative path of the script. */
      readonly path: string;
      /** Globs of the files the script's PASS is about (fingerprinted; default: the artifact). */
      readonly scope: readonly string[];
      /** Seconds. */
      readonly timeout: number;
      /** Hash the script is already bound to (a follow-up inherits its parent's); null until its first run. */
      readonly bound_sha256: Sha256 | null;
      readonly digest: Sha256;
    };

/** One receipt a proof run appended, as a verdict or audit records it. */
export interface ProofReceipt {
  readonly check_id: string;
  readonly receipt: string;
  readonly hash: Sha256;
  readonly verdict: Verdict;
  readonly reason: Reason;
  readonly fingerprint: Sha256;
}

/** How a run of a script proof related to the hash bound before it. */
export interface ScriptUse {
  readonly name: string;
  readonly sha256: Sha256;
  /** first: this run bound it. same: it matched the bound hash. revised: a revise-script decision authorised it. */
  readonly binding: 'first' | 'same' | 'revised';
  /** The revise-script decision that authorised it (binding: revised). */
  readonly decision: string | null;
}

/** retry and ask are the coordinator's answers to a card event that change nothing about what closes the card. */
export type DecisionKind = 'rescope' | 'revise_script' | 'split' | 'abandon' | 'reprove' | 'retry' | 'ask';

/** ask: the one question for the asking session, and the proof's last two failure lines it rests on. */
export interface Question {
  readonly question: string;
  /** The last two non-empty output lines of the newest failing receipt of the proof (stderr, else stdout); fewer when there are fewer. */
  readonly failure_lines: readonly string[];
  /** That receipt, or null when the proof never failed. */
  readonly receipt: string | null;
}

/** The fields of a card's contract a rescope may change. Never the proof. */
export interface ContractChanges {
  readonly goal?: string;
  readonly artifact?: string;
  readonly done_when?: string;
  readonly lands_at?: string | null;
  readonly budget_attempts?: number;
  readonly budget_tokens?: number | null;
}

interface Base<E extends string> extends SubjectEventBody {
  readonly kind: 'card';
  readonly event: E;
  readonly by: CardActor;
}

export interface OpenedEvent extends Base<'opened'> {
  readonly goal: string;
  readonly artifact: string;
  readonly done_when: string;
  readonly lands_at: string | null;
  readonly budget_attempts: number;
  /** Tokens the card's worker may spend, counted from its transcript; absent or null: no token budget. */
  readonly budget_tokens?: number | null;
  readonly verify: VerifyMode;
  /** What the opener asked for; a script proof is always independent. */
  readonly verify_requested: VerifyMode;
  readonly proof: ProofSnapshot;
  /** Set on a follow-up card: the card whose audit failed, and that audit. */
  readonly follow_up_of: { readonly card: string; readonly audit: string } | null;
  /** 0 for a card a person or coordinator opened; 1 and 2 for follow-ups. */
  readonly depth: number;
  /** The agent session the card was opened from, which gets the one-line answer at its next Stop; absent or null: opened outside one. */
  readonly asked_from?: AskingSession | null;
}

/** An agent session, as its client names it in hook calls. */
export interface AskingSession {
  readonly client: string;
  readonly session: string;
}

/** A worker starts. A card has one writer: the holder named here, until a retry frees it or a reassign moves it. */
export interface ClaimedEvent extends Base<'claimed'> {
  /** Who holds the card from now (--as NAME, VOUCH_WORKER, or the role and agent client); absent on claims recorded before holders existed. */
  readonly holder?: string;
  /** Set when the owner or a coordinator moved the card from another holder: that holder, and why. */
  readonly reassigned_from?: string | null;
  readonly why?: string | null;
}

export interface VerdictEvent extends Base<'verdict'> {
  readonly proof_digest: Sha256;
  /** PASS only when every receipt of the run is a PASS. */
  readonly verdict: Verdict;
  /** The first non-PASS receipt's reason, or ok. */
  readonly reason: Reason;
  /** 1 for the first verify of the card. */
  readonly attempt: number;
  readonly receipts: readonly ProofReceipt[];
  readonly script: ScriptUse | null;
}

export interface DecisionEvent extends Base<'decision'> {
  readonly decision: DecisionKind;
  readonly why: string;
  /** rescope: the contract fields changed, with their new values. */
  readonly changes: ContractChanges | null;
  /** revise_script: the one new hash this decision authorises. */
  readonly script_sha256: Sha256 | null;
  /** split: the cards this one was split into. */
  readonly into: readonly string[] | null;
  /** reprove: the new proof, frozen now from the allowed spec. */
  readonly proof: ProofSnapshot | null;
  /** ask: the question and the failure lines; absent on decisions recorded before ask existed. */
  readonly ask?: Question | null;
}

export interface CompletedEvent extends Base<'completed'> {
  /** The verdict event whose PASS closed the card. */
  readonly verdict_event: string;
  readonly receipts: readonly ProofReceipt[];
}

/** The owner closed the card without a fresh PASS. Never a pass. */
export interface OwnerCloseEvent extends Base<'owner_close'> {
  readonly why: string;
  /** The newest verdict of the proof when it was forced closed, if any. */
  readonly last_verdict: { readonly event: string; readonly verdict: Verdict; readonly reason: Reason } | null;
}

/** The proof of a done card, run again afterwards. */
export interface AuditEvent extends Base<'audit'> {
  readonly proof_digest: Sha256;
  readonly verdict: Verdict;
  readonly reason: Reason;
  readonly receipts: readonly ProofReceipt[];
  readonly script: ScriptUse | null;
  /** The follow-up card a FAIL or UNKNOWN opened. */
  readonly follow_up: string | null;
  /** Why a FAIL or UNKNOWN opened none: the chain of follow-ups is already two deep, or one is still open. */
  readonly follow_up_skipped: 'depth_limit' | 'open_follow_up' | null;
  /**
   * Why the proof could not run at all (its script changed or is gone...):
   * the audit is then recorded as UNKNOWN (no_receipt) with this problem.
   * Absent on audits recorded before it existed.
   */
  readonly not_run?: { readonly code: string; readonly message: string } | null;
  /** True when vouch ran it by itself as the card closed (no one asked for it); absent otherwise. */
  readonly on_close?: true;
}

/** On the parent: a follow-up card was opened because its audit failed. */
export interface FollowUpEvent extends Base<'follow_up'> {
  readonly card: string;
  readonly audit: string;
}

/** Why the guard stopped a card's worker: over its token budget, or five failed tool calls in a row. */
export type StopReason = 'over_budget_tokens' | 'failed_calls';

/** The card's worker was stopped by the hook: its further tool calls are denied until a decision. */
export interface StoppedEvent extends Base<'stopped'> {
  readonly reason: StopReason;
  /** Tokens its transcript shows spent, and the budget (null when none). */
  readonly tokens: number;
  readonly budget_tokens: number | null;
  readonly failed_in_a_row: number;
  /** The worker: its client, session and subagent id (null for the session's own agent). */
  readonly worker: { readonly client: string; readonly session: string; readonly agent_id: string | null };
}

/** The card's answer (its close, or its question) was shown once to the session that asked for it, at that session's Stop. */
export interface AnsweredEvent extends Base<'answered'> {
  /** The event answered: the completed, owner_close or closing decision, or the ask decision. */
  readonly answer: string;
  readonly to: AskingSession;
  /** The line the session was shown. */
  readonly line: string;
}

export type CardEvent =
  AnsweredEvent | StoppedEvent | OpenedEvent | ClaimedEvent | VerdictEvent | DecisionEvent | CompletedEvent | OwnerCloseEvent | AuditEvent | FollowUpEvent;
export type CardEventName = CardEvent['event'];

/** Every event word, in the order a card's life usually shows them. */
export const CARD_EVENTS: readonly CardEventName[] = [
  'opened',
  'claimed',
  'verdict',
  'decision',
  'completed',
  'owner_close',
  'audit',
  'follow_up',
  'stopped',
  'answered',
];

/** A card event without the fields the store fills in. */
export type CardEventDraft<E extends CardEvent = CardEvent> = E extends CardEvent ? Omit<E, 'v' | 'kind' | 'id' | 'at' | 'subject' | 'by'> : never;
