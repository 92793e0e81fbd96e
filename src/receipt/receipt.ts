import type { Sha256 } from '../core/digest.js';
import type { Reason, Verdict } from '../core/status.js';
import type { SandboxRecord } from './sandbox-record.js';
import type { ReuseRecord } from './reuse.js';
import type { DuplicateRecord } from './duplicate.js';
import type { TestCounts } from '../core/test-counts.js';

/** Who asked for a run. A label for the record, not an authentication. */
export type Actor = 'cli' | 'hook' | 'mcp' | 'service';

/** One output stream of a run: hash of everything, a redacted excerpt of the end. */
export interface StreamRecord {
  readonly sha256: Sha256;
  readonly bytes: number;
  /** The last excerpt_bytes of the stream (whole lines), redacted. */
  readonly excerpt: string;
  /** True when the excerpt is not the whole stream. */
  readonly truncated: boolean;
}

/**
 * Where a run's whole output is kept: a file in .vouch/logs named by the
 * SHA-256 of its stored bytes (src/logs). The output is redacted as the
 * excerpts are, gzip-compressed and bounded (LOG_CAP raw bytes per stream).
 */
export interface LogRecord {
  /** SHA-256 of the stored (compressed) file: its name, and its check. */
  readonly sha256: Sha256;
  /** Size of the stored file. */
  readonly bytes: number;
}

/**
 * The immutable record of one execution. Its canonical JSON (RFC 8785) is
 * hashed; `prev_hash` chains it to the entry before it in the ledger.
 */
export interface ReceiptBody extends ReuseRecord, DuplicateRecord {
  readonly v: 1;
  readonly kind: 'receipt';
  readonly id: string;
  readonly check_id: string;
  /** Digest of the check's definition when it ran. */
  readonly definition_digest: Sha256;
  /** SHA-256 of vouch.yaml when it ran (the allowed spec). */
  readonly spec_sha256: Sha256;
  readonly argv: readonly string[];
  readonly shell: boolean;
  /** Workspace-relative. */
  readonly cwd: string;
  readonly timeout_s: number;
  /** Names (never values) of the environment passed to the check. */
  readonly env_names: readonly string[];
  /** argv[0] resolved on PATH when it ran; null if not found or with a shell. */
  readonly executable: string | null;
  /**
   * Digest of the pins the check ran under (trust/pins-digest.ts): the PATH,
   * the program and the tool configs a person allowed. Status counts the
   * receipt only under the same pins (`pins_mismatch` otherwise). Absent on
   * receipts recorded before vouch kept it (they read as `pins_mismatch`)
   * and on runs no local trust decided (the verifier service's).
   */
  readonly pins_digest?: Sha256;
  /** False when a problem found before the run stopped it from starting. */
  readonly ran: boolean;
  readonly started_at: string;
  readonly finished_at: string;
  readonly duration_ms: number;
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly timed_out: boolean;
  readonly stdout: StreamRecord | null;
  readonly stderr: StreamRecord | null;
  /**
   * The run's whole output, stored beside the ledger. Absent on receipts
   * recorded before vouch kept logs, on runs that never started, and when
   * the log could not be written; present, it is part of the hashed body.
   */
  readonly log?: LogRecord;
  /**
   * What the test runner's own summary in the output said: tests run,
   * passed, failed, skipped (runner/test-summary.ts). Absent where no
   * summary vouch knows was printed, on runs that never started, and on
   * receipts recorded before vouch read them.
   */
  readonly tests?: TestCounts;
  /** Digest of the file manifest (stored once per distinct digest). */
  readonly manifest_digest: Sha256;
  readonly file_count: number;
  /** Digest of definition + manifest: what `status` compares with now. */
  readonly fingerprint: Sha256;
  readonly verdict: Verdict;
  readonly reason: Reason;
  /** One line for people: which file changed, the spawn error, ... */
  readonly detail: string | null;
  readonly proves: string;
  readonly engine: { readonly name: 'vouch'; readonly version: string };
  readonly platform: { readonly os: string; readonly arch: string; readonly node: string };
  readonly git: { readonly head: string | null; readonly dirty: boolean } | null;
  readonly actor: Actor;
  /**
   * Set when the process that recorded this receipt ran inside an AI agent's
   * run (the client's markers in its environment, or an MCP caller): evidence
   * made inside an agent's run never lets that agent stop, close a card or
   * pass a grade. Absent on receipts made outside one, and on those recorded
   * before vouch kept it.
   */
  readonly agent_run?: AgentRunRecord;
  /** Set when the agent gate ran the check itself to answer a stop: the evidence the gate accepts. */
  readonly gate?: GateStamp;
  /**
   * Set on a hermetic check's local run: the bubblewrap sandbox it ran in
   * and what it could see (a private copy of its declared files only).
   * Absent on runs that were not hermetic; the verifier service records its
   * own in `service.sandbox`.
   */
  readonly sandbox?: SandboxRecord;
  /** Set by the verifier service on the receipts it signs: which job, and how the checks were confined. */
  readonly service?: ServiceRecord;
  /** Set on a receipt recorded by `vouch verify --remote`: the verifier's signed receipt it copies. */
  readonly remote?: RemoteRecord;
  /** Hash of the previous ledger entry; null for the first. */
  readonly prev_hash: Sha256 | null;
}

/** The agent run a receipt was recorded in, as vouch detected it. */
export interface AgentRunRecord {
  /** The client: claude-code, codex, cursor, mcp-client, or what AI_AGENT said. */
  readonly agent: string;
  /** What showed it: the environment variable, or MCP. */
  readonly marker: string;
}

/** Which stop the gate was answering when it ran a check. */
export interface GateStamp {
  readonly session: string;
  readonly client: string;
  /** Stop or SubagentStop, or grade for a dispatch graded at a subagent's stop. */
  readonly event: string;
}

/** How the verifier service ran a job's checks. */
export interface ServiceRecord {
  readonly job: string;
  /** 'bubblewrap': no network, what was writable and how large, the job's cgroup and what else held; 'none': the worker's own permissions (see `why`). */
  readonly sandbox: SandboxRecord;
  /** The fresh nonce the client sent with the job: a receipt replayed from another job does not carry it. Absent on receipts of older verifiers. */
  readonly nonce?: string;
  /**
   * Where the receipt's `git` came from: 'client' means it is what the
   * client said of its own work tree, unverified. The verifier never runs
   * git on an upload (an upload's .git is refused).
   */
  readonly git_source?: 'client';
}

export type { SandboxRecord } from './sandbox-record.js';

/**
 * A remote receipt as accepted: the verifier's exact signed body and its
 * signature, so `status` can check them again under the pinned key. The
 * local receipt copies the remote body's fields; status refuses one whose
 * copy disagrees with the signed original.
 */
export interface RemoteRecord {
  readonly url: string;
  readonly job: string;
  readonly receipt_id: string;
  /** SHA-256 of `body`: the remote receipt's hash in the verifier's chain. */
  readonly receipt_hash: Sha256;
  /** Key id (SHA-256 of the raw public key) of the verifier that signed it. */
  readonly keyid: string;
  /** The remote receipt's canonical body, exactly as signed. */
  readonly body: string;
  /** The signature record over `body` ({"alg","keyid","sig"}). */
  readonly signature: string;
}

/** A receipt as read back from a ledger. */
export interface StoredReceipt {
  readonly seq: number;
  readonly hash: Sha256;
  readonly body: ReceiptBody;
  /** False when the stored bytes no longer hash to the stored hash. */
  readonly intact: boolean;
  /** The stored signature record over the canonical body, or null when unsigned (see crypto/signature.ts). */
  readonly signature: string | null;
}

export type ReceiptDraft = Omit<ReceiptBody, 'prev_hash'>;
