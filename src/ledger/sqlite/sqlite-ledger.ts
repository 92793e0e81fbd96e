import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import type { Sha256 } from '../../core/digest.js';
import { ID_LENGTH, newId } from '../../core/ids.js';
import { manifestDigest, type Manifest } from '../../scope/manifest.js';
import type { ReceiptBody, ReceiptDraft, StoredReceipt } from '../../receipt/receipt.js';
import type { SessionEntryBody, SessionEntryDraft, StoredSessionEntry } from '../session-entries.js';
import type { StoredEvent, SubjectEventBody, SubjectKind } from '../events.js';
import {
  NOTHING_REMOVED,
  pickReceipt,
  EventConflict,
  LedgerError,
  manifestFrom,
  type AppendEventOptions,
  type AppendOptions,
  type FindResult,
  type GcPolicy,
  type GcResult,
  type Ledger,
  type LedgerEntry,
  type LedgerStats,
  type ManifestOf,
  type ReceiptQuery,
  type RecentEntry,
  parseRecentBody,
  RECENT_SLACK_MS,
} from '../ledger.js';
import type { ChainKind } from '../kinds.js';
import { applyRetention, candidatePage, gcRecord, keptCounts, plannedResult, releasedLogs, selectionDone, type Candidate } from '../gc-record.js';
import { BodyStore } from './body-store.js';
import { sqlite } from './driver.js';
import { LEDGER_FORMAT, MIGRATIONS } from './schema.js';
import { decodeManifest, encodeManifest, intact, link, parseBody, readEvent } from '../chain.js';

interface ChainRow {
  seq: number;
  id: string;
  hash: string;
  /** The canonical text, or its compressed form (body-store.ts): read it through BodyStore.decode. */
  body: string | Buffer;
  dict: number | null;
  signature: string | null;
}

/** The columns of an entry read as a receipt, an event or a session entry: decode() needs body and dict. */
const ENTRY_COLUMNS = 'seq, id, hash, body, dict, signature';

/** One receipt to append: its draft and the manifest its digest names (or how to build it). */
export interface AppendItem {
  readonly draft: ReceiptDraft;
  readonly manifest: ManifestOf;
}

interface EntryRow {
  state: 'live' | 'pruned';
  seq: number;
  id: string;
  kind: string | null;
  check_id: string | null;
  manifest: string | null;
  hash: string;
  body: string | Buffer | null;
  dict: number | null;
  signature: string | null;
  gc_id: string | null;
  subject: string | null;
}

const BUSY_TIMEOUT_MS = 30_000;

export interface OpenOptions {
  /** Create the file (and its directory) when absent. Reads never create. */
  readonly create: boolean;
}

/**
 * Opens the SQLite ledger, or returns undefined when it does not exist and
 * `create` is false (nothing recorded yet is not an error).
 */
export function openSqliteLedger(path: string, options: OpenOptions): SqliteLedger | undefined {
  if (!options.create && !existsSync(path)) return undefined;
  if (options.create && !readOnlyHere(path)) prepareStateDir(dirname(path));
  let db: Database.Database | undefined;
  try {
    const { Database: Driver, options: binding } = sqlite();
    db = new Driver(path, { ...binding, fileMustExist: !options.create, timeout: BUSY_TIMEOUT_MS });
    db.pragma('journal_mode = WAL');
  } catch (error) {
    db?.close();
    if (!readOnlyHere(path)) throw translate(error, path);
    if (options.create) throw new LedgerError('read_only', READ_ONLY_HERE, path, { cause: error });
    return readOnlyCopy(path);
  }
  try {
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, path);
  } catch (error) {
    db.close();
    throw translate(error, path);
  }
  return new SqliteLedger(db, path);
}

const READ_ONLY_HERE =
  "the ledger's folder is read-only here: inside the agent's box (Claude Code's sandbox) .vouch/ is read-only on purpose, so nothing an agent's command runs is recorded. " +
  'Stop when the work is done: the gate runs the checks itself (or use the MCP tool vouch_verify, which runs outside the box)';

/** The ledger's folder cannot be written at all (a read-only mount, the agent's box): not a lock or a damaged file. */
function readOnlyHere(path: string): boolean {
  try {
    accessSync(dirname(path), constants.W_OK);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EROFS';
  }
}

/**
 * A reader where the folder is read-only: SQLite cannot make the WAL's
 * shared-memory file there, so the ledger is read as it is on disk (a
 * consistent snapshot when no write-ahead log is pending, which a closed
 * ledger never has), in memory and query-only. With a pending log the
 * read-only driver can use it when its files exist; otherwise it says so.
 */
function readOnlyCopy(path: string): SqliteLedger {
  const { Database: Driver, options: binding } = sqlite();
  let db: Database.Database;
  try {
    db = pendingLog(path) ? new Driver(path, { ...binding, readonly: true, fileMustExist: true }) : new Driver(rollbackImage(readFileSync(path)), binding);
    db.pragma('query_only = ON');
    db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get();
  } catch (error) {
    throw translate(error, path);
  }
  return new SqliteLedger(db, path);
}

/**
 * The file's bytes with its header's read and write versions (offsets 18
 * and 19) set from WAL (2) to rollback (1): an in-memory image cannot use a
 * write-ahead log, and SQLite refuses to open one that asks for it.
 */
function rollbackImage(bytes: Buffer): Buffer {
  if (bytes.length >= 100 && bytes[18] === 2 && bytes[19] === 2) {
    bytes[18] = 1;
    bytes[19] = 1;
  }
  return bytes;
}

function pendingLog(path: string): boolean {
  try {
    return statSync(`${path}-wal`).size > 0;
  } catch {
    return false;
  }
}

/** .vouch/ ignores itself in git, so the ledger never makes a tree dirty. */
function prepareStateDir(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const ignore = join(dir, '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, '# vouch state: local receipts, never committed\n*\n');
}

function migrate(db: Database.Database, path: string): void {
  const hasMeta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
  const tables = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n;
  if (!hasMeta && tables > 0) throw new LedgerError('corrupt', 'the file is an SQLite database but not a vouch ledger', path);
  const run = db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
    const format = db.prepare("SELECT value FROM meta WHERE key = 'format'").get() as { value: string } | undefined;
    if (format && format.value !== LEDGER_FORMAT) throw new LedgerError('corrupt', `unexpected ledger format "${format.value}"`, path);
    const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
    const version = row ? Number(row.value) : 0;
    if (!Number.isInteger(version) || version < 0) throw new LedgerError('corrupt', `unreadable schema version "${row?.value}"`, path);
    if (version > MIGRATIONS.length) {
      throw new LedgerError('too_new', `ledger schema ${version} is newer than this vouch understands (${MIGRATIONS.length})`, path);
    }
    for (let next = version; next < MIGRATIONS.length; next++) db.exec(MIGRATIONS[next]!);
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('format', ?), ('schema_version', ?)").run(LEDGER_FORMAT, String(MIGRATIONS.length));
  });
  if (hasMeta) {
    const current = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get() as string | undefined;
    if (Number(current ?? 0) === MIGRATIONS.length) return;
  }
  run.immediate();
}

/** The manifest's digest, which must be the one its receipt names. */
function checkedDigest(draft: ReceiptDraft, manifest: Manifest): Sha256 {
  const digest = manifestDigest(manifest);
  if (digest !== draft.manifest_digest) throw new Error('bug: receipt manifest_digest does not match its manifest');
  return digest;
}

function translate(error: unknown, path: string): unknown {
  if (error instanceof LedgerError) return error;
  const code = (error as { code?: string }).code ?? '';
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new LedgerError('corrupt', `the ledger is damaged (${code})`, path, { cause: error });
  }
  if (code.startsWith('SQLITE_')) {
    return new LedgerError('unreadable', `the ledger cannot be used (${code}: ${(error as Error).message})`, path, { cause: error });
  }
  return error;
}

/**
 * What a gc's policy selects, before what must stay is taken out: receipts
 * ranked per check, newest first (rank 1 is never removed), past the count
 * or older than the cutoff; trail entries by age alone. Parameters: the
 * count to keep per check, then the cutoff twice.
 */
const GC_SELECTION = `SELECT seq, id, hash, kind, check_id, session FROM (
    SELECT seq, id, hash, kind, check_id, session, created_at,
           ROW_NUMBER() OVER (PARTITION BY check_id ORDER BY seq DESC) AS rank
    FROM chain WHERE kind = 'receipt')
  WHERE rank > 1 AND (rank > ? OR created_at < ?)
  UNION ALL
  SELECT seq, id, hash, kind, check_id, session FROM chain WHERE kind = 'trail' AND created_at < ?`;

/**
 * The oldest receipts and trail entries (in seq order, at most the first
 * parameter of them) older than the cutoff (the second), less the latest
 * receipt of each check: what gc by age would select among them.
 */
const OLD_CANDIDATES = `SELECT count(*) FROM (SELECT seq, kind, check_id, created_at FROM chain WHERE kind IN ('receipt', 'trail') ORDER BY seq LIMIT ?) AS oldest
  WHERE created_at < ? AND (kind = 'trail' OR seq < (SELECT max(seq) FROM chain AS newer WHERE newer.kind = 'receipt' AND newer.check_id = oldest.check_id))`;

export class SqliteLedger implements Ledger {
  private readonly bodies: BodyStore;
  private heads: { readonly live: Database.Statement; readonly pruned: Database.Statement } | undefined;

  constructor(
    private readonly db: Database.Database,
    readonly path: string,
  ) {
    this.bodies = new BodyStore(db);
  }

  private guard<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      if (error instanceof EventConflict) return Promise.reject(error);
      const translated = translate(error, this.path);
      return Promise.reject(translated instanceof Error ? translated : new Error(String(translated)));
    }
  }

  /**
   * The chain's head: the entry of the highest seq, live or pruned. gc may
   * prune the newest entries (old trail at the end of the chain), and the
   * next entry must still follow them: it takes the next seq (a seq is
   * never given twice: the pruned trace keeps it) and links to the hash of
   * the entry just before it, pruned or not, which is what `vouch audit`
   * follows. Without this, SQLite hands a pruned tail's seq out again
   * (INTEGER PRIMARY KEY reuses the largest rowid + 1).
   */
  private head(): { seq: number; hash: Sha256 | null } {
    this.heads ??= {
      live: this.db.prepare('SELECT seq, hash FROM chain ORDER BY seq DESC LIMIT 1'),
      pruned: this.db.prepare('SELECT seq, hash FROM pruned ORDER BY seq DESC LIMIT 1'),
    };
    const live = this.heads.live.get() as { seq: number; hash: Sha256 } | undefined;
    const pruned = this.heads.pruned.get() as { seq: number; hash: Sha256 } | undefined;
    const newest = (pruned?.seq ?? 0) > (live?.seq ?? 0) ? pruned : live;
    return { seq: newest?.seq ?? 0, hash: newest?.hash ?? null };
  }

  appendReceipt(draft: ReceiptDraft, manifest: ManifestOf, options: AppendOptions = {}): Promise<StoredReceipt> {
    return this.appendReceipts([{ draft, manifest }], options).then((stored) => stored[0]!);
  }

  /**
   * Appends receipts in order, in one transaction: all of them or none,
   * each chained to the entry before it (and signed, with `options.sign`).
   * `appendReceipt` is this with one item; a batch only saves the
   * per-transaction cost (the benchmark writes a million receipts this way).
   */
  appendReceipts(items: readonly AppendItem[], options: AppendOptions = {}): Promise<StoredReceipt[]> {
    return this.guard(() => {
      // A manifest given is checked against its receipt now; one to be built, when it is built (below).
      const digests = items.map(({ draft, manifest }) => (typeof manifest === 'function' ? draft.manifest_digest : checkedDigest(draft, manifest)));
      const hasManifest = this.db.prepare('SELECT 1 FROM manifests WHERE digest = ?').pluck();
      const insertManifest = this.db.prepare('INSERT OR IGNORE INTO manifests (digest, body) VALUES (?, ?)');
      const insert = this.db.prepare(
        'INSERT INTO chain (seq, id, kind, check_id, manifest, created_at, hash, body, dict, signature, pass_fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      const append = this.db.transaction(() => {
        let { seq, hash: prev } = this.head();
        const stored: StoredReceipt[] = [];
        items.forEach(({ draft, manifest }, i) => {
          const digest = digests[i]!;
          // Signed and hashed as canonical text; only how it is stored is compact.
          const { body, text, hash, signature } = link<ReceiptDraft>(draft, prev, options.sign);
          // Stored once per digest: an unchanged tree adds no manifest bytes.
          if (hasManifest.get(digest) === undefined) {
            const built = manifestFrom(manifest);
            if (typeof manifest === 'function') checkedDigest(draft, built);
            insertManifest.run(digest, encodeManifest(built));
          }
          seq += 1;
          const compact = this.bodies.encode(body.check_id, text, seq);
          insert.run(
            seq,
            body.id,
            'receipt',
            body.check_id,
            digest,
            Date.parse(body.finished_at),
            hash,
            compact.body,
            compact.dict,
            signature,
            body.verdict === 'PASS' ? body.fingerprint : null,
          );
          prev = hash;
          stored.push({ seq, hash, body, intact: true, signature });
        });
        return stored;
      });
      return append.immediate();
    });
  }

  passesOf(checkId: string, fingerprint: Sha256, limit: number): Promise<StoredReceipt[]> {
    return this.guard(() => {
      const rows = this.db
        .prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE check_id = ? AND pass_fingerprint = ? ORDER BY seq DESC LIMIT ?`)
        .all(checkId, fingerprint, limit) as ChainRow[];
      return rows.map((row) => this.decode(row));
    });
  }

  latestReceipts(checkIds: readonly string[]): Promise<Map<string, StoredReceipt>> {
    return this.guard(() => {
      const query = this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE kind = 'receipt' AND check_id = ? ORDER BY seq DESC LIMIT 1`);
      const result = new Map<string, StoredReceipt>();
      for (const id of checkIds) {
        const row = query.get(id) as ChainRow | undefined;
        if (row) result.set(id, this.decode(row));
      }
      return result;
    });
  }

  findReceipt(idOrPrefix: string): Promise<FindResult> {
    return this.guard(() => {
      const key = idOrPrefix.toLowerCase();
      const rows = this.db
        .prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE kind = 'receipt' AND id >= ? AND id < ? ORDER BY id LIMIT 5`)
        .all(key, `${key}\u{10ffff}`) as ChainRow[];
      // The short form is the end of an id: no index serves it, so this scans the receipts' ids (a person's lookup, not a hot path).
      const bySuffix =
        key.length < ID_LENGTH
          ? (this.db
              .prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE kind = 'receipt' AND substr(id, ?) = ? ORDER BY id LIMIT 5`)
              .all(ID_LENGTH + 1 - key.length, key) as ChainRow[])
          : [];
      return pickReceipt(key, [...rows, ...bySuffix], (row) => this.decode(row));
    });
  }

  listReceipts(query: ReceiptQuery): Promise<StoredReceipt[]> {
    return this.guard(() => {
      const where = ["kind = 'receipt'"];
      const params: (string | number)[] = [];
      if (query.checkId !== undefined) {
        where.push('check_id = ?');
        params.push(query.checkId);
      }
      if (query.since !== undefined) {
        where.push('created_at >= ?');
        params.push(query.since.getTime());
      }
      if (query.afterSeq !== undefined) {
        where.push('seq > ?');
        params.push(query.afterSeq);
      }
      const rows = this.db
        .prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`)
        .all(...params, query.limit) as ChainRow[];
      return rows.map((row) => this.decode(row));
    });
  }

  getManifest(digest: Sha256): Promise<Manifest | undefined> {
    return this.guard(() => {
      const row = this.db.prepare('SELECT body FROM manifests WHERE digest = ?').pluck().get(digest) as Buffer | undefined;
      if (!row) return undefined;
      const manifest = decodeManifest(row);
      // A manifest that does not hash to its key is damage, not data.
      if (!manifest || manifestDigest(manifest) !== digest) return undefined;
      return manifest;
    });
  }

  gc(policy: GcPolicy): Promise<GcResult> {
    return this.guard(() => {
      const run = this.db.transaction((): GcResult => {
        const keepPerCheck = Math.max(1, policy.keepPerCheck ?? Number.MAX_SAFE_INTEGER);
        const cutoff = policy.keepDays === undefined ? Number.MAX_SAFE_INTEGER : policy.now.getTime() - policy.keepDays * 86_400_000;
        if (policy.keepDays === undefined && policy.keepPerCheck === undefined) {
          return NOTHING_REMOVED;
        }
        // Rank receipts per check, newest first; rank 1 is never removed. Trail entries go by age alone.
        const age = policy.keepDays === undefined ? -1 : cutoff;
        const page = candidatePage(policy);
        const select = this.db.prepare(`SELECT * FROM (${GC_SELECTION}) WHERE seq > ? ORDER BY seq LIMIT ?`);
        let selected: Candidate[] = [];
        for (let after = 0; ;) {
          const rows = select.all(keepPerCheck, age, age, after, page ?? -1) as Candidate[];
          selected = selected.concat(rows);
          if (selectionDone(selected, rows, page, policy)) break;
          after = rows[rows.length - 1]!.seq;
        }
        const { doomed, retained, deferred } = applyRetention(selected, policy);
        if (policy.dryRun) return { ...plannedResult(doomed, retained), ...keptCounts(0, deferred) };
        if (doomed.length === 0) return { ...NOTHING_REMOVED, ...keptCounts(retained, deferred) };
        const gcId = newId(policy.now.getTime());
        // Read before the rows (and the dictionaries their bodies need) go.
        const bodyAt = this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE seq = ?`);
        const logs = releasedLogs(doomed.filter((row) => row.kind === 'receipt').map((row) => this.decode(bodyAt.get(row.seq) as ChainRow)));
        const keep = this.db.prepare('INSERT INTO pruned (seq, id, hash, gc_id) VALUES (?, ?, ?, ?)');
        const drop = this.db.prepare('DELETE FROM chain WHERE seq = ?');
        for (const row of doomed) {
          keep.run(row.seq, row.id, row.hash, gcId);
          drop.run(row.seq);
        }
        const manifestsRemoved = this.db
          .prepare('DELETE FROM manifests WHERE digest NOT IN (SELECT manifest FROM chain WHERE manifest IS NOT NULL)')
          .run().changes;
        // Dictionaries no remaining entry needs; the newest of each check stays for the next append.
        this.db
          .prepare(
            'DELETE FROM dicts WHERE id NOT IN (SELECT dict FROM chain WHERE dict IS NOT NULL) AND id NOT IN (SELECT max(id) FROM dicts GROUP BY check_id)',
          )
          .run();
        const head = this.head();
        const gc = link(gcRecord(gcId, policy, doomed), head.hash, policy.sign);
        this.db
          .prepare('INSERT INTO chain (seq, id, kind, check_id, manifest, created_at, hash, body, signature) VALUES (?, ?, ?, NULL, NULL, ?, ?, ?, ?)')
          .run(head.seq + 1, gcId, 'gc', policy.now.getTime(), gc.hash, gc.text, gc.signature);
        return {
          removed: doomed.length,
          trailRemoved: doomed.filter((row) => row.kind === 'trail').length,
          manifestsRemoved,
          gcEntryId: gcId,
          retained,
          ...keptCounts(0, deferred),
          ...logs,
        };
      });
      return run.immediate();
    });
  }

  gcCandidates(policy: Pick<GcPolicy, 'keepDays' | 'keepPerCheck' | 'now'>, checkIds: readonly string[], atMost: number): Promise<number> {
    return this.guard(() => {
      let most = 0;
      if (policy.keepPerCheck !== undefined) {
        const past = this.db
          .prepare(`SELECT count(*) FROM (SELECT 1 FROM chain WHERE kind = 'receipt' AND check_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?)`)
          .pluck();
        for (const id of checkIds) most = Math.max(most, past.get(id, atMost, Math.max(1, policy.keepPerCheck)) as number);
      }
      if (policy.keepDays !== undefined && most < atMost) {
        const cutoff = policy.now.getTime() - policy.keepDays * 86_400_000;
        most = Math.max(
          most,
          this.db
            .prepare(OLD_CANDIDATES)
            .pluck()
            .get(2 * atMost + checkIds.length, cutoff) as number,
        );
      }
      return Math.min(most, atMost);
    });
  }

  appendSessionEntry(draft: SessionEntryDraft, options: AppendOptions = {}): Promise<StoredSessionEntry> {
    return this.guard(() => {
      const insert = this.db.prepare(
        'INSERT INTO chain (seq, id, kind, check_id, manifest, created_at, hash, body, session, signature) VALUES (?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?)',
      );
      const append = this.db.transaction(() => {
        const head = this.head();
        const { text, hash, signature } = link(draft, head.hash, options.sign);
        insert.run(head.seq + 1, draft.id, draft.kind, Date.parse(draft.at), hash, text, draft.session, signature);
        return { seq: head.seq + 1, hash, body: draft, intact: true } satisfies StoredSessionEntry;
      });
      return append.immediate();
    });
  }

  sessionEntries(session: string): Promise<StoredSessionEntry[]> {
    return this.guard(() => {
      const rows = this.db.prepare(`SELECT ${ENTRY_COLUMNS} FROM chain WHERE session = ? ORDER BY seq`).all(session) as ChainRow[];
      return rows.flatMap((row) => {
        const text = this.bodies.decode(row);
        const body = parseBody<SessionEntryBody>(text);
        if (body === undefined) return [];
        // A session entry whose bytes do not match its hash still counts as
        // "this session was gated", but its content is not trusted.
        return [{ seq: row.seq, hash: row.hash as Sha256, body, intact: intact(text!, row.hash, body, row.id) }];
      });
    });
  }

  appendEvent<T extends SubjectEventBody>(draft: T, options: AppendEventOptions = {}): Promise<StoredEvent<T>> {
    return this.guard(() => {
      const newest = this.db.prepare('SELECT id FROM chain WHERE kind = ? AND subject = ? ORDER BY seq DESC LIMIT 1').pluck();
      const insert = this.db.prepare(
        'INSERT INTO chain (seq, id, kind, check_id, manifest, created_at, hash, body, subject, signature) VALUES (?, ?, ?, NULL, NULL, ?, ?, ?, ?, ?)',
      );
      const append = this.db.transaction(() => {
        if (options.after !== undefined) {
          const latest = (newest.get(draft.kind, draft.subject) as string | undefined) ?? null;
          if (latest !== options.after) throw new EventConflict(draft.subject, latest);
        }
        const head = this.head();
        const { text, hash, signature } = link(draft, head.hash, options.sign);
        insert.run(head.seq + 1, draft.id, draft.kind, Date.parse(draft.at), hash, text, draft.subject, signature);
        return { seq: head.seq + 1, hash, body: draft, signature, intact: true } satisfies StoredEvent<T>;
      });
      return append.immediate();
    });
  }

  events<T extends SubjectEventBody>(kind: T['kind'], subject: string): Promise<StoredEvent<T>[]> {
    return this.guard(() => {
      const rows = this.db.prepare(`SELECT ${ENTRY_COLUMNS}, subject FROM chain WHERE kind = ? AND subject = ? ORDER BY seq`).all(kind, subject) as EventRow[];
      return rows.map((row) => this.decodeEvent<T>(row, kind));
    });
  }

  latestEvents<T extends SubjectEventBody>(kind: T['kind'], limit: number): Promise<StoredEvent<T>[]> {
    return this.guard(() => {
      const rows = this.db
        .prepare(
          `SELECT c.seq, c.id, c.hash, c.body, c.dict, c.signature, c.subject FROM chain c
           JOIN (SELECT MAX(seq) AS seq FROM chain WHERE kind = ? AND subject IS NOT NULL GROUP BY subject) newest ON c.seq = newest.seq
           ORDER BY c.seq DESC LIMIT ?`,
        )
        .all(kind, limit) as EventRow[];
      return rows.map((row) => this.decodeEvent<T>(row, kind));
    });
  }

  subjects(kind: SubjectKind, limit: number): Promise<string[]> {
    return this.guard(
      () =>
        this.db
          .prepare('SELECT subject FROM chain WHERE kind = ? AND subject IS NOT NULL GROUP BY subject ORDER BY MAX(seq) DESC LIMIT ?')
          .pluck()
          .all(kind, limit) as string[],
    );
  }

  recentSessions(limit: number): Promise<string[]> {
    return this.guard(
      () =>
        this.db.prepare('SELECT session FROM chain WHERE session IS NOT NULL GROUP BY session ORDER BY MAX(seq) DESC LIMIT ?').pluck().all(limit) as string[],
    );
  }

  entriesSince(since: Date, kinds: readonly ChainKind[]): Promise<RecentEntry[]> {
    return this.guard(() => {
      const floor = since.getTime() - RECENT_SLACK_MS;
      const wanted = kinds.map(() => '?').join(', ');
      // Backwards by seq (the rowid); the body is read only for the kinds asked for, so receipts cost no overflow pages.
      const rows = this.db
        .prepare(
          `SELECT seq, kind, created_at, CASE WHEN kind IN (${wanted}) THEN body END AS body, CASE WHEN kind IN (${wanted}) THEN dict END AS dict FROM chain ORDER BY seq DESC`,
        )
        .iterate(...kinds, ...kinds) as IterableIterator<{
        seq: number;
        kind: ChainKind;
        created_at: number;
        body: string | Buffer | null;
        dict: number | null;
      }>;
      const found: RecentEntry[] = [];
      for (const row of rows) {
        if (row.created_at < floor) break;
        if (row.body === null || row.created_at < since.getTime()) continue;
        found.push({ seq: row.seq, kind: row.kind, createdAt: row.created_at, body: parseRecentBody(this.bodies.decode({ body: row.body, dict: row.dict })) });
      }
      return found.reverse();
    });
  }

  stats(): Promise<LedgerStats> {
    return this.guard(() => {
      const receipts = this.db.prepare("SELECT count(*) FROM chain WHERE kind = 'receipt'").pluck().get() as number;
      const manifests = this.db.prepare('SELECT count(*) FROM manifests').pluck().get() as number;
      const pages = this.db.pragma('page_count', { simple: true }) as number;
      const pageSize = this.db.pragma('page_size', { simple: true }) as number;
      return { receipts, manifests, bytes: pages * pageSize };
    });
  }

  async *entries(): AsyncGenerator<LedgerEntry> {
    let rows: IterableIterator<unknown>;
    try {
      rows = this.db
        .prepare(
          `SELECT 'live' AS state, seq, id, kind, check_id, manifest, hash, body, dict, signature, NULL AS gc_id, subject FROM chain
           UNION ALL
           SELECT 'pruned' AS state, seq, id, NULL, NULL, NULL, hash, NULL, NULL, NULL, gc_id, NULL FROM pruned
           ORDER BY seq, state`,
        )
        .iterate();
    } catch (error) {
      throw translate(error, this.path);
    }
    try {
      for (;;) {
        let next: IteratorResult<unknown>;
        try {
          next = rows.next();
        } catch (error) {
          throw translate(error, this.path);
        }
        if (next.done) return;
        yield this.toEntry(next.value as EntryRow);
      }
    } finally {
      rows.return?.();
    }
  }

  /** An entry as stored, its body decoded to the exact canonical text that was hashed (and signed). */
  private toEntry(row: EntryRow): LedgerEntry {
    if (row.state === 'pruned') return { state: 'pruned', seq: row.seq, id: row.id, hash: row.hash, gcId: row.gc_id ?? '' };
    return {
      state: 'live',
      seq: row.seq,
      id: row.id,
      kind: row.kind ?? '',
      checkId: row.check_id,
      manifest: row.manifest,
      hash: row.hash,
      // A body that cannot be decoded (a damaged dictionary or blob) is no
      // text at all: it cannot hash to the chain's hash, and audit says so.
      body: this.bodies.decode(row) ?? '',
      signature: row.signature,
      subject: row.subject,
    };
  }

  /** An event as stored: decoded, and believed only when its bytes still hash to its hash and its row agrees with it. */
  private decodeEvent<T extends SubjectEventBody>(row: EventRow, kind: string): StoredEvent<T> {
    return readEvent<T>(row, this.bodies.decode(row), kind);
  }

  private decode(row: ChainRow): StoredReceipt {
    const damaged = { seq: row.seq, hash: row.hash as Sha256, body: { id: row.id } as ReceiptBody, intact: false, signature: row.signature };
    const text = this.bodies.decode(row);
    const body = parseBody<ReceiptBody>(text);
    if (body === undefined) return damaged;
    return { seq: row.seq, hash: row.hash as Sha256, body, intact: intact(text!, row.hash, body, row.id), signature: row.signature };
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}

type EventRow = ChainRow & { subject: string };
