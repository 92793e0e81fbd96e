import type { Client } from '../clients/registry.js';
import type { Sha256 } from '../core/digest.js';
import type { Reason, Status } from '../core/status.js';
import type { GateReason } from '../core/gate-reason.js';

export type { Client } from '../clients/registry.js';

/** What every session entry starts with: which session, client, hook event and (for a subagent) agent wrote it, and when. */
interface SessionEntryHead<K extends string> {
  readonly v: 1;
  readonly kind: K;
  readonly id: string;
  readonly at: string;
  readonly session: string;
  readonly client: Client;
  /** The hook event as the client named it: PostToolUse, SubagentStart, Stop. */
  readonly event: string;
  /** Set when a subagent made the call or stopped. */
  readonly agent_id: string | null;
}

/**
 * What an agent's tool call left behind, as its own hook reported it
 * (PostToolUse). The agent chose the command and could have printed anything,
 * so a trail entry is context for the gate (which paths the session touched),
 * never evidence of a PASS: only a receipt of an operator-declared check is.
 */
export interface TrailBody extends SessionEntryHead<'trail'> {
  /** Always true: the label that keeps this record from ever being read as evidence. */
  readonly untrusted: true;
  readonly tool: string | null;
  readonly tool_use_id: string | null;
  /** SHA-256 of the tool input's canonical JSON (for a shell call, of the command). */
  readonly input_sha256: Sha256 | null;
  /** SHA-256 of the tool response's canonical JSON. */
  readonly response_sha256: Sha256 | null;
  readonly exit_code: number | null;
  readonly duration_ms: number | null;
  /** Workspace-relative paths the call wrote, as far as its input shows. */
  readonly paths: readonly string[];
  /** True when the call may have written files its input does not name (a shell command). */
  readonly opaque_writes: boolean;
}

/** One check as the gate saw it when it decided. */
export interface GateCheck {
  readonly id: string;
  readonly status: Status;
  readonly reason: Reason;
  readonly receipt: string | null;
}

/** One answer of the gate to a stop (Stop, SubagentStop). */
export interface GateBody extends SessionEntryHead<'gate'> {
  /** escaped: let through unverified after too many blocks with no file change. */
  readonly decision: 'allow' | 'block' | 'escaped';
  readonly reason: GateReason;
  /** The spec the gate graded against; null when there was none to read. */
  readonly spec_sha256: Sha256 | null;
  readonly on_stop: 'verify' | 'require' | null;
  /** The relevant blocking checks and their standing when the gate answered. */
  readonly checks: readonly GateCheck[];
  /** Digest of the files the candidate checks cover: equal digests mean no file changed. */
  readonly tree: Sha256 | null;
  /** Consecutive blocks with this tree, this one included (0 for an allow). */
  readonly blocks: number;
  /** What the client said: it is already continuing because of an earlier block. */
  readonly stop_hook_active: boolean;
  /**
   * Stop: the session's dispatches that were not terminated; SubagentStop:
   * the subagent's own dispatch. Absent from entries recorded before
   * dispatches existed.
   */
  readonly dispatches?: readonly { readonly id: string; readonly state: string; readonly running: boolean }[];
  /**
   * The agent's last message at this stop: its claim, in its own words,
   * redacted and cut to CLAIM_CHARS (the SHA-256 is of the whole text).
   * Never evidence of anything; recorded so the report can set it against
   * the gate's answer. Absent from entries recorded before it was kept, and
   * when the agent said nothing.
   */
  readonly claim?: { readonly text: string; readonly sha256: Sha256; readonly truncated: boolean };
}

/** The most of a claim a gate entry keeps. */
export const CLAIM_CHARS = 2000;

export type SessionEntryBody = TrailBody | GateBody;
export type SessionEntryDraft = SessionEntryBody;

export interface StoredSessionEntry {
  readonly seq: number;
  readonly hash: Sha256;
  readonly body: SessionEntryBody;
  /** False when the stored bytes no longer hash to the stored hash. */
  readonly intact: boolean;
}
