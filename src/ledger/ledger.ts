import type { Sha256 } from '../core/digest.js';
import type { Manifest } from '../scope/manifest.js';
import type { ReceiptDraft, StoredReceipt } from '../receipt/receipt.js';
import type { SessionEntryDraft, StoredSessionEntry } from '../gate/entries.js';

export interface ReceiptQuery {
  readonly checkId?: string;
  /** Newest first; at most this many. */
  readonly limit: number;
}

export interface GcPolicy {
  /** Remove receipts older than this many days (the latest of a check is always kept). */
  readonly keepDays?: number;
  /** Keep at most this many receipts per check (at least 1 is always kept). */
  readonly keepPerCheck?: number;
  readonly now: Date;
}

export interface GcResult {
  readonly removed: number;
  readonly manifestsRemoved: number;
  /** Id of the chain entry recording the removal; null when nothing was removed. */
  readonly gcEntryId: string | null;
}

export interface LedgerStats {
  readonly receipts: number;
  readonly manifests: number;
  readonly bytes: number;
}

/**
 * Where receipts live. SQLite is the embedded default; a PostgreSQL backend
 * implements the same interface. Every method is async so that both fit.
 *
 * Appends are serialised per ledger: each append reads the newest entry's
 * hash and writes the new entry in one transaction, so concurrent writers
 * lose nothing and never fork the chain.
 */
export interface Ledger {
  /** Appends a receipt, chaining it to the newest entry; stores its manifest once per digest. */
  appendReceipt(draft: ReceiptDraft, manifest: Manifest): Promise<StoredReceipt>;
  /** The newest receipt of each named check that has one. */
  latestReceipts(checkIds: readonly string[]): Promise<Map<string, StoredReceipt>>;
  /** One receipt by full id or unique prefix (at least 6 characters). */
  findReceipt(idOrPrefix: string): Promise<FindResult>;
  listReceipts(query: ReceiptQuery): Promise<StoredReceipt[]>;
  getManifest(digest: Sha256): Promise<Manifest | undefined>;
  gc(policy: GcPolicy): Promise<GcResult>;
  /**
   * Appends an entry of an agent session (its untrusted tool trail, a gate
   * decision) to the same chain as receipts. Never read as evidence of a PASS.
   */
  appendSessionEntry(draft: SessionEntryDraft): Promise<StoredSessionEntry>;
  /** Every entry of one session, oldest first. */
  sessionEntries(session: string): Promise<StoredSessionEntry[]>;
  /** Ids of the sessions with entries, most recently active first. */
  recentSessions(limit: number): Promise<string[]>;
  stats(): Promise<LedgerStats>;
  close(): Promise<void>;
}

export type FindResult =
  | { readonly kind: 'found'; readonly receipt: StoredReceipt }
  | { readonly kind: 'none' }
  | { readonly kind: 'ambiguous'; readonly ids: readonly string[] };

/** Raised by a backend for damage it cannot work around; mapped to a Problem at the edge. */
export class LedgerError extends Error {
  constructor(
    readonly kind: 'corrupt' | 'unreadable' | 'too_new',
    message: string,
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LedgerError';
  }
}
