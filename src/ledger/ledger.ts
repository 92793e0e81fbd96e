import type { Sha256 } from '../core/digest.js';
import type { Manifest } from '../scope/manifest.js';
import type { ReceiptDraft, StoredReceipt } from '../receipt/receipt.js';
import type { SessionEntryDraft, StoredSessionEntry } from './session-entries.js';
import type { StoredEvent, SubjectEventBody, SubjectKind } from './events.js';
import type { ChainKind } from './kinds.js';

/**
 * Signs an entry: takes its canonical body (exactly the bytes its hash
 * covers) and returns the signature to store beside it. Runs inside the
 * append transaction, because prev_hash is only known there.
 */
export type Signer = (canonicalBody: string) => string;

export interface AppendOptions {
  /** Sign the new entry; without it the entry is stored unsigned. */
  readonly sign?: Signer;
}

/**
 * Options of an event append. `after` makes it a compare-and-append: the
 * event is written only when the subject's newest event (of this kind) is
 * the one named, or, for null, when the subject has no event yet. The
 * check and the write are one transaction, so two writers that read the
 * same state cannot both extend it; the loser gets an EventConflict.
 */
export interface AppendEventOptions extends AppendOptions {
  readonly after?: string | null;
}

export interface ReceiptQuery {
  readonly checkId?: string;
  /** Only receipts that finished at or after this time. */
  readonly since?: Date;
  /** Only receipts appended after this position of the chain (seq greater than it). */
  readonly afterSeq?: number;
  /** Newest first; at most this many. */
  readonly limit: number;
}

export interface GcPolicy {
  /**
   * Remove receipts older than this many days (the latest of a check is
   * always kept), and agent trail entries older than that (untrusted records
   * of tool calls, one per call: the bulk of a busy ledger). Gate decisions,
   * card and dispatch events are never removed.
   */
  readonly keepDays?: number;
  /** Keep at most this many receipts per check (at least 1 is always kept). */
  readonly keepPerCheck?: number;
  readonly now: Date;
  /** Sign the gc entry recording the removal. */
  readonly sign?: Signer;
  /** What stays whatever the policy says (src/retention/retained.ts: open cards, open dispatches, unstopped sessions). */
  readonly retain?: GcRetained;
  /** Say what would go, remove nothing, record nothing. */
  readonly dryRun?: boolean;
  /**
   * Remove at most this many entries, the oldest first (the automatic gc's
   * bound per run, retention/auto.ts); the rest wait for the next gc.
   */
  readonly maxRemove?: number;
  /** Set by the automatic gc: its record says so (`auto: true`). */
  readonly auto?: boolean;
}

/** Entries gc keeps because something still open decides on them. */
export interface GcRetained {
  /** Receipt ids named by an open card's verdicts or an open dispatch's grades. */
  readonly receipts: ReadonlySet<string>;
  /** Per check, the seq from which every receipt stays (an open card's proof: a later FAIL must still refuse it). */
  readonly fromSeq: ReadonlyMap<string, number>;
  /** Sessions not seen stopping: their trail stays. */
  readonly sessions: ReadonlySet<string>;
  readonly openCards: number;
  readonly openDispatches: number;
}

/** One entry gc removes (or, in a dry run, would remove). */
export interface GcEntry {
  readonly seq: number;
  readonly id: string;
  readonly kind: 'receipt' | 'trail';
  readonly check_id: string | null;
  readonly session: string | null;
}

export interface GcResult {
  /** Entries removed, receipts and trail entries together. */
  readonly removed: number;
  /** Of those, agent trail entries. */
  readonly trailRemoved: number;
  readonly manifestsRemoved: number;
  /** Id of the chain entry recording the removal; null when nothing was removed (and in a dry run). */
  readonly gcEntryId: string | null;
  /** Entries the policy would have removed that `retain` kept. */
  readonly retained?: number;
  /** Entries the policy lets go that `maxRemove` left for a later gc: at least this many (a bounded gc reads its selection a page at a time). */
  readonly deferred?: number;
  /** A dry run: what would go, oldest first. */
  readonly planned?: readonly GcEntry[];
  /**
   * The stored logs of the removed receipts, for the caller to delete from
   * .vouch/logs once the removal is committed (src/logs/store.ts). Absent
   * when no removed receipt had one.
   */
  readonly releasedLogs?: readonly ReleasedLog[];
}

/** A removed receipt's log: the file, and the receipt its header must name. */
export interface ReleasedLog {
  readonly receipt: string;
  readonly sha256: Sha256;
}

export interface LedgerStats {
  readonly receipts: number;
  readonly manifests: number;
  readonly bytes: number;
}

/**
 * One position of the chain as stored, unjudged, for `vouch audit`: a live
 * entry (receipt or gc record) with its exact stored text, or the trace gc
 * left of an entry it removed.
 */
export type LedgerEntry =
  | {
      readonly state: 'live';
      readonly seq: number;
      readonly id: string;
      /** As stored: 'receipt' or 'gc' unless someone edited the row. */
      readonly kind: string;
      readonly checkId: string | null;
      readonly manifest: string | null;
      readonly hash: string;
      readonly body: string;
      readonly signature: string | null;
      /**
       * The subject column of a card or dispatch event, as stored (null for
       * other kinds). Optional so that a backend without it still compiles;
       * when present, audit checks it against the body.
       */
      readonly subject?: string | null;
    }
  | { readonly state: 'pruned'; readonly seq: number; readonly id: string; readonly hash: string; readonly gcId: string };

/**
 * Where the engine puts what it runs: one receipt per execution, chained
 * and stored by whoever holds it (a ledger, or the verifier service's job,
 * which collects them to sign and store in one transaction). A sink that
 * can list its receipts lets a run be judged against the check's recent
 * passes (engine/test-verdict.ts: skips_grew).
 */
export type ReceiptSink = Pick<Ledger, 'appendReceipt'> & Partial<Pick<Ledger, 'listReceipts'>>;

/**
 * A receipt's manifest, or how to build it. A scope answered from its
 * record knows its manifest's digest without building the list (720 files
 * cost a verify several milliseconds): the SQLite ledger builds it only
 * when it does not hold a manifest of that digest yet.
 */
export type ManifestOf = Manifest | (() => Manifest);

export function manifestFrom(manifest: ManifestOf): Manifest {
  return typeof manifest === 'function' ? manifest() : manifest;
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
  appendReceipt(draft: ReceiptDraft, manifest: ManifestOf, options?: AppendOptions): Promise<StoredReceipt>;
  /**
   * The newest PASS receipts (at most `limit`) of a check whose fingerprint
   * is this one: the earlier proofs of a state (engine/reuse.ts). One index
   * probe; receipts written before the index existed are not found.
   */
  passesOf(checkId: string, fingerprint: Sha256, limit: number): Promise<StoredReceipt[]>;
  /** The newest receipt of each named check that has one. */
  latestReceipts(checkIds: readonly string[]): Promise<Map<string, StoredReceipt>>;
  /**
   * One receipt by full id, or by a part of one that only it has: a leading
   * prefix or a trailing suffix (the short form people see, core/ids.ts).
   * Callers ask for at least 6 characters.
   */
  findReceipt(idOrPrefix: string): Promise<FindResult>;
  listReceipts(query: ReceiptQuery): Promise<StoredReceipt[]>;
  getManifest(digest: Sha256): Promise<Manifest | undefined>;
  gc(policy: GcPolicy): Promise<GcResult>;
  /**
   * Whether the ledger is over policy, cheaply (the automatic gc asks after
   * every verify): the larger of two counts, each stopping at `atMost` and
   * reading index entries, never the whole chain. The receipts of each
   * named check past its newest `keepPerCheck`; and, among the oldest
   * receipts and trail entries (2 × atMost + the named checks' number of
   * them, in seq order), those older than `keepDays` that are not the
   * latest of their check. So it answers at most what gc would select,
   * before what must stay is taken out; receipts of checks not named count
   * only by age.
   */
  gcCandidates(policy: Pick<GcPolicy, 'keepDays' | 'keepPerCheck' | 'now'>, checkIds: readonly string[], atMost: number): Promise<number>;
  /**
   * Appends an entry of an agent session (its untrusted tool trail, a gate
   * decision) to the same chain as receipts. Never read as evidence of a PASS.
   */
  appendSessionEntry(draft: SessionEntryDraft, options?: AppendOptions): Promise<StoredSessionEntry>;
  /** Every entry of one session, oldest first. */
  sessionEntries(session: string): Promise<StoredSessionEntry[]>;
  /** Ids of the sessions with entries, most recently active first. */
  recentSessions(limit: number): Promise<string[]>;
  /**
   * The entries of these kinds appended at or after `since` (by the time
   * they were appended), oldest first: what changed in the ledger while an
   * agent session ran. Walks back from the newest entry and stops at the
   * first one appended more than RECENT_SLACK_MS before `since`, so it reads
   * only the entries of that period (a writer's clock set back defeats it).
   */
  entriesSince(since: Date, kinds: readonly ChainKind[]): Promise<RecentEntry[]>;
  /**
   * Appends an event about a card or a dispatch to the chain (see events.ts).
   * With `after`, only when the subject's newest event is still that one;
   * otherwise rejects with EventConflict and writes nothing.
   */
  appendEvent<T extends SubjectEventBody>(draft: T, options?: AppendEventOptions): Promise<StoredEvent<T>>;
  /** Every event of one subject, oldest first. Damaged ones are returned with intact: false. */
  events<T extends SubjectEventBody>(kind: T['kind'], subject: string): Promise<StoredEvent<T>[]>;
  /** Ids of the subjects of a kind with events, most recently active first. */
  subjects(kind: SubjectKind, limit: number): Promise<string[]>;
  /**
   * The newest event of each subject of a kind, most recently active first
   * (the order of `subjects`): what state each is in, without reading every
   * event. Damaged ones are returned with intact: false.
   */
  latestEvents<T extends SubjectEventBody>(kind: T['kind'], limit: number): Promise<StoredEvent<T>[]>;
  stats(): Promise<LedgerStats>;
  /**
   * Every chain entry and every pruned trace, in seq order (a live entry
   * before a pruned one of the same seq), read without judgement: checking
   * hashes, links, signatures and gc records is the auditor's job. Seq
   * starts at 1 and grows by 1 per append; the only holes a backend may
   * leave are entries gc removed (and recorded as pruned), so any other hole
   * is reported as a deletion.
   */
  entries(): AsyncIterable<LedgerEntry>;
  close(): Promise<void>;
}

/** A chain entry as `entriesSince` finds it. */
export interface RecentEntry {
  readonly seq: number;
  readonly kind: ChainKind;
  /** When it was appended (ms since the epoch, the writer's clock). */
  readonly createdAt: number;
  /** Its body parsed; null when it does not parse (read as damaged, never as what it claims). */
  readonly body: Readonly<Record<string, unknown>> | null;
}

/** How far before `since` entriesSince keeps walking: writers append slightly out of clock order. */
export const RECENT_SLACK_MS = 5_000;

/** A body text parsed as an object, or null. */
export function parseRecentBody(text: string | null | undefined): Readonly<Record<string, unknown>> | null {
  if (typeof text !== 'string') return null;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export type FindResult =
  { readonly kind: 'found'; readonly receipt: StoredReceipt } | { readonly kind: 'none' } | { readonly kind: 'ambiguous'; readonly ids: readonly string[] };

/**
 * Raised by a backend for damage it cannot work around; mapped to a Problem at the edge.
 * `schema_behind`: a PostgreSQL ledger whose schema `vouch db migrate` has not brought up to date.
 */
export class LedgerError extends Error {
  constructor(
    /** read_only: its folder cannot be written at all (the agent's box), so nothing can be recorded from here. */
    readonly kind: 'corrupt' | 'unreadable' | 'read_only' | 'too_new' | 'schema_behind',
    message: string,
    readonly path: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LedgerError';
  }
}

/**
 * A compare-and-append lost: the subject's newest event is no longer the one
 * the writer based its event on (another process appended first). Nothing
 * was written; the caller reads the subject again and decides anew.
 */
export class EventConflict extends Error {
  constructor(
    readonly subject: string,
    /** The id of the subject's newest event now; null when it has none. */
    readonly latest: string | null,
  ) {
    super(`another event about ${subject} was appended first`);
    this.name = 'EventConflict';
  }
}

/**
 * Which receipt an id, prefix or suffix names, from the rows either lookup
 * found (at most a few of each): the exact id, else the only match, else
 * all of them, for the person to choose from.
 */
export function pickReceipt<Row extends { readonly id: string }>(key: string, rows: readonly Row[], decode: (row: Row) => StoredReceipt): FindResult {
  const unique = [...new Map(rows.map((row) => [row.id, row])).values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  const exact = unique.find((row) => row.id === key);
  if (exact) return { kind: 'found', receipt: decode(exact) };
  if (unique.length === 0) return { kind: 'none' };
  if (unique.length > 1) return { kind: 'ambiguous', ids: unique.map((row) => row.id) };
  return { kind: 'found', receipt: decode(unique[0]!) };
}

/** What a gc that found nothing to remove reports. */
export const NOTHING_REMOVED: GcResult = { removed: 0, trailRemoved: 0, manifestsRemoved: 0, gcEntryId: null };
