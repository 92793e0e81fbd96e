import type { Sha256 } from '../../core/digest.js';
import type { ReceiptDraft, StoredReceipt } from '../../receipt/receipt.js';
import type { Manifest } from '../../scope/manifest.js';
import type {
  AppendEventOptions,
  AppendOptions,
  FindResult,
  GcPolicy,
  GcResult,
  Ledger,
  LedgerEntry,
  LedgerStats,
  ManifestOf,
  ReceiptQuery,
  RecentEntry,
} from '../ledger.js';
import type { ChainKind } from '../kinds.js';
import type { PgLocation } from './pool.js';
import type { SessionEntryDraft, StoredSessionEntry } from '../session-entries.js';
import type { StoredEvent, SubjectEventBody, SubjectKind } from '../events.js';

/**
 * A PostgreSQL ledger that connects on first use. Commands open their
 * ledger synchronously (SQLite opens a file); this keeps that shape, and
 * keeps the driver and the PostgreSQL code out of every process that never
 * touches a PostgreSQL ledger: both are imported only here, when first used.
 */
export class LazyPgLedger implements Ledger {
  private opened: Promise<Ledger> | undefined;

  constructor(readonly at: PgLocation) {}

  private ledger(): Promise<Ledger> {
    this.opened ??= import('./pg-ledger.js').then(({ openPgLedger }) => openPgLedger(this.at));
    return this.opened;
  }

  async appendReceipt(draft: ReceiptDraft, manifest: ManifestOf, options?: AppendOptions): Promise<StoredReceipt> {
    return (await this.ledger()).appendReceipt(draft, manifest, options);
  }

  async passesOf(checkId: string, fingerprint: Sha256, limit: number): Promise<StoredReceipt[]> {
    return (await this.ledger()).passesOf(checkId, fingerprint, limit);
  }

  async latestReceipts(checkIds: readonly string[]): Promise<Map<string, StoredReceipt>> {
    return (await this.ledger()).latestReceipts(checkIds);
  }

  async findReceipt(idOrPrefix: string): Promise<FindResult> {
    return (await this.ledger()).findReceipt(idOrPrefix);
  }

  async listReceipts(query: ReceiptQuery): Promise<StoredReceipt[]> {
    return (await this.ledger()).listReceipts(query);
  }

  async getManifest(digest: Sha256): Promise<Manifest | undefined> {
    return (await this.ledger()).getManifest(digest);
  }

  async gc(policy: GcPolicy): Promise<GcResult> {
    return (await this.ledger()).gc(policy);
  }

  async gcCandidates(policy: Pick<GcPolicy, 'keepDays' | 'keepPerCheck' | 'now'>, checkIds: readonly string[], atMost: number): Promise<number> {
    return (await this.ledger()).gcCandidates(policy, checkIds, atMost);
  }

  async appendSessionEntry(draft: SessionEntryDraft, options?: AppendOptions): Promise<StoredSessionEntry> {
    return (await this.ledger()).appendSessionEntry(draft, options);
  }

  async sessionEntries(session: string): Promise<StoredSessionEntry[]> {
    return (await this.ledger()).sessionEntries(session);
  }

  async recentSessions(limit: number): Promise<string[]> {
    return (await this.ledger()).recentSessions(limit);
  }

  async entriesSince(since: Date, kinds: readonly ChainKind[]): Promise<RecentEntry[]> {
    return (await this.ledger()).entriesSince(since, kinds);
  }

  async appendEvent<T extends SubjectEventBody>(draft: T, options?: AppendEventOptions): Promise<StoredEvent<T>> {
    return (await this.ledger()).appendEvent(draft, options);
  }

  async events<T extends SubjectEventBody>(kind: T['kind'], subject: string): Promise<StoredEvent<T>[]> {
    return (await this.ledger()).events<T>(kind, subject);
  }

  async latestEvents<T extends SubjectEventBody>(kind: T['kind'], limit: number): Promise<StoredEvent<T>[]> {
    return (await this.ledger()).latestEvents<T>(kind, limit);
  }

  async subjects(kind: SubjectKind, limit: number): Promise<string[]> {
    return (await this.ledger()).subjects(kind, limit);
  }

  async stats(): Promise<LedgerStats> {
    return (await this.ledger()).stats();
  }

  async *entries(): AsyncGenerator<LedgerEntry> {
    yield* (await this.ledger()).entries();
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (!opened) return;
    // A ledger that failed to open has nothing to close; its error was reported where it was used.
    const ledger = await opened.catch(() => undefined);
    await ledger?.close();
  }
}
