import type { Pool } from 'pg';
import type { Sha256 } from '../../core/digest.js';
import { ID_LENGTH, newId } from '../../core/ids.js';
import { manifestDigest, type Manifest } from '../../scope/manifest.js';
import type { ReceiptDraft, StoredReceipt } from '../../receipt/receipt.js';
import type { SessionEntryBody, SessionEntryDraft, StoredSessionEntry } from '../session-entries.js';
import type { StoredEvent, SubjectEventBody, SubjectKind } from '../events.js';
import {
  EventConflict,
  NOTHING_REMOVED,
  pickReceipt,
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
  manifestFrom,
  parseRecentBody,
  RECENT_SLACK_MS,
} from '../ledger.js';
import type { ChainKind } from '../kinds.js';
import { applyRetention, candidatePage, gcRecord, keptCounts, plannedResult, releasedLogs, selectionDone, type Candidate } from '../gc-record.js';
import { appendLocked, insertLocked, lockHead } from './append.js';
import { decodeManifest, decodeReceipt, RECEIPT_COLUMNS, toEntry, type EntryRow, type ReceiptRow } from './codec.js';
import { requireCurrentSchema } from './migrate.js';
import { inTransaction, openPool, pgError, type PgLocation } from './pool.js';
import { intact, link, parseBody, readEvent } from '../chain.js';

/** Rows read per round trip while walking the chain for `vouch audit`. */
const PAGE = 2000;

/** Opens the ledger in a PostgreSQL schema; refuses a schema that is not migrated to this vouch's version. */
export interface PgLedgerOptions {
  /** Connections kept (default 2: one command's reads and writes). */
  readonly poolSize?: number;
  /** Rows per round trip in entries() (default 2000; tests use a small one to cross pages). */
  readonly pageSize?: number;
}

export async function openPgLedger(at: PgLocation, options: PgLedgerOptions = {}): Promise<PgLedger> {
  const pool = await openPool(at, options.poolSize ?? 2);
  try {
    await requireCurrentSchema(pool, at);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw pgError(error, at);
  }
  return new PgLedger(pool, at, options.pageSize ?? PAGE);
}

/**
 * The team ledger: the same chain, entries and contract as the SQLite one
 * (see ledger.ts), in one PostgreSQL schema shared by any number of
 * machines. Appends serialise on the `head` row lock.
 */
/**
 * What a gc's policy selects, before what must stay is taken out: receipts
 * ranked per check, newest first (rank 1 is never removed), past the count
 * ($1) or older than the cutoff ($2); trail entries by age alone.
 */
const GC_SELECTION = `SELECT seq, id, hash, kind, check_id, session FROM (
    SELECT seq, id, hash, kind, check_id, session, created_at,
           ROW_NUMBER() OVER (PARTITION BY check_id ORDER BY seq DESC) AS rank
    FROM chain WHERE kind = 'receipt') AS ranked
  WHERE rank > 1 AND (rank > $1 OR created_at < $2)
  UNION ALL
  SELECT seq, id, hash, kind, check_id, session FROM chain WHERE kind = 'trail' AND created_at < $2`;

/**
 * The oldest receipts and trail entries (in seq order, at most $1 of them)
 * older than the cutoff ($2), less the latest receipt of each check: what
 * gc by age would select among them.
 */
const OLD_CANDIDATES = `SELECT count(*) AS n FROM (SELECT seq, kind, check_id, created_at FROM chain WHERE kind IN ('receipt', 'trail') ORDER BY seq LIMIT $1) AS oldest
  WHERE created_at < $2 AND (kind = 'trail' OR seq < (SELECT max(seq) FROM chain AS newer WHERE newer.kind = 'receipt' AND newer.check_id = oldest.check_id))`;

export class PgLedger implements Ledger {
  constructor(
    readonly pool: Pool,
    readonly at: PgLocation,
    private readonly pageSize = PAGE,
  ) {}

  private async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const translated = pgError(error, this.at);
      throw translated instanceof Error ? translated : new Error(String(translated));
    }
  }

  appendReceipt(draft: ReceiptDraft, manifest: ManifestOf, options: AppendOptions = {}): Promise<StoredReceipt> {
    return this.guard(() =>
      inTransaction(this.pool, async (client) => appendLocked(client, await lockHead(client), draft, manifestFrom(manifest), options.sign)),
    );
  }

  passesOf(checkId: string, fingerprint: Sha256, limit: number): Promise<StoredReceipt[]> {
    return this.guard(async () => {
      const rows = await this.pool.query<ReceiptRow>(
        `SELECT ${RECEIPT_COLUMNS} FROM chain WHERE check_id = $1 AND pass_fingerprint = $2 ORDER BY seq DESC LIMIT $3`,
        [checkId, fingerprint, limit],
      );
      return rows.rows.map(decodeReceipt);
    });
  }

  latestReceipts(checkIds: readonly string[]): Promise<Map<string, StoredReceipt>> {
    return this.guard(async () => {
      const result = new Map<string, StoredReceipt>();
      if (checkIds.length === 0) return result;
      // One round trip for all checks; each is one index probe on chain_by_check.
      const rows = await this.pool.query<ReceiptRow & { check_id: string }>(
        `SELECT c.check_id, ${RECEIPT_COLUMNS.split(', ')
          .map((column) => `r.${column}`)
          .join(', ')}
         FROM unnest($1::text[]) AS c(check_id)
         CROSS JOIN LATERAL (
           SELECT ${RECEIPT_COLUMNS} FROM chain
           WHERE kind = 'receipt' AND check_id = c.check_id ORDER BY seq DESC LIMIT 1
         ) AS r`,
        [[...checkIds]],
      );
      for (const row of rows.rows) result.set(row.check_id, decodeReceipt(row));
      return result;
    });
  }

  findReceipt(idOrPrefix: string): Promise<FindResult> {
    return this.guard(async () => {
      const key = idOrPrefix.toLowerCase();
      const rows = (
        await this.pool.query<ReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM chain WHERE kind = 'receipt' AND id >= $1 AND id < $2 ORDER BY id LIMIT 5`, [
          key,
          `${key}\u{10ffff}`,
        ])
      ).rows;
      // The short form is the end of an id (core/ids.ts): a scan of the receipts' ids, for a person's lookup.
      const bySuffix =
        key.length < ID_LENGTH
          ? (
              await this.pool.query<ReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM chain WHERE kind = 'receipt' AND right(id, $1) = $2 ORDER BY id LIMIT 5`, [
                key.length,
                key,
              ])
            ).rows
          : [];
      return pickReceipt(key, [...rows, ...bySuffix], decodeReceipt);
    });
  }

  listReceipts(query: ReceiptQuery): Promise<StoredReceipt[]> {
    return this.guard(async () => {
      const where = ["kind = 'receipt'"];
      const params: (string | number)[] = [];
      if (query.checkId !== undefined) {
        params.push(query.checkId);
        where.push(`check_id = $${params.length}`);
      }
      if (query.since !== undefined) {
        params.push(query.since.getTime());
        where.push(`created_at >= $${params.length}`);
      }
      if (query.afterSeq !== undefined) {
        params.push(query.afterSeq);
        where.push(`seq > $${params.length}`);
      }
      params.push(query.limit);
      const rows = await this.pool.query<ReceiptRow>(
        `SELECT ${RECEIPT_COLUMNS} FROM chain WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${params.length}`,
        params,
      );
      return rows.rows.map(decodeReceipt);
    });
  }

  getManifest(digest: Sha256): Promise<Manifest | undefined> {
    return this.guard(async () => {
      const row = (await this.pool.query<{ body: Buffer }>('SELECT body FROM manifests WHERE digest = $1', [digest])).rows[0];
      if (!row) return undefined;
      const manifest = decodeManifest(row.body);
      // A manifest that does not hash to its key is damage, not data.
      if (!manifest || manifestDigest(manifest) !== digest) return undefined;
      return manifest;
    });
  }

  gc(policy: GcPolicy): Promise<GcResult> {
    if (policy.keepDays === undefined && policy.keepPerCheck === undefined) {
      return Promise.resolve(NOTHING_REMOVED);
    }
    return this.guard(() =>
      inTransaction(this.pool, async (client): Promise<GcResult> => {
        const head = await lockHead(client);
        const keepPerCheck = Math.max(1, policy.keepPerCheck ?? Number.MAX_SAFE_INTEGER);
        const cutoff = policy.keepDays === undefined ? -1 : policy.now.getTime() - policy.keepDays * 86_400_000;
        // Rank receipts per check, newest first; rank 1 is never removed. Trail entries go by age alone.
        const page = candidatePage(policy);
        let selected: Candidate[] = [];
        for (let after = 0; ;) {
          const rows = (
            await client.query<Candidate>(`SELECT * FROM (${GC_SELECTION}) AS selection WHERE seq > $3 ORDER BY seq LIMIT $4`, [
              keepPerCheck,
              cutoff,
              after,
              page,
            ])
          ).rows.map((row) => ({ ...row, seq: Number(row.seq) }));
          selected = selected.concat(rows);
          if (selectionDone(selected, rows, page, policy)) break;
          after = rows[rows.length - 1]!.seq;
        }
        const { doomed, retained, deferred } = applyRetention(selected, policy);
        if (policy.dryRun) return { ...plannedResult(doomed, retained), ...keptCounts(0, deferred) };
        if (doomed.length === 0) return { ...NOTHING_REMOVED, ...keptCounts(retained, deferred) };
        const gcId = newId(policy.now.getTime());
        const seqs = doomed.map((row) => row.seq);
        const logs = releasedLogs(
          (await client.query<ReceiptRow>(`SELECT ${RECEIPT_COLUMNS} FROM chain WHERE kind = 'receipt' AND seq = ANY($1::bigint[])`, [seqs])).rows.map(
            decodeReceipt,
          ),
        );
        await client.query(`INSERT INTO pruned (seq, id, hash, gc_id) SELECT seq, id, hash, $2 FROM chain WHERE seq = ANY($1::bigint[])`, [seqs, gcId]);
        await client.query('DELETE FROM chain WHERE seq = ANY($1::bigint[])', [seqs]);
        const manifestsRemoved =
          (await client.query('DELETE FROM manifests m WHERE NOT EXISTS (SELECT 1 FROM chain c WHERE c.manifest = m.digest)')).rowCount ?? 0;
        // The head was read before anything was pruned: the record follows the newest entry, pruned or not (audit follows pruned traces' hashes).
        const gc = link(gcRecord(gcId, policy, doomed), head.hash, policy.sign);
        await insertLocked(client, head, {
          id: gcId,
          kind: 'gc',
          checkId: null,
          manifest: null,
          createdAt: policy.now.getTime(),
          text: gc.text,
          signature: gc.signature,
        });
        return {
          removed: doomed.length,
          trailRemoved: doomed.filter((row) => row.kind === 'trail').length,
          manifestsRemoved,
          gcEntryId: gcId,
          retained,
          ...keptCounts(0, deferred),
          ...logs,
        };
      }),
    );
  }

  gcCandidates(policy: Pick<GcPolicy, 'keepDays' | 'keepPerCheck' | 'now'>, checkIds: readonly string[], atMost: number): Promise<number> {
    return this.guard(async () => {
      const count = async (text: string, values: unknown[]) => Number((await this.pool.query<{ n: string }>(text, values)).rows[0]?.n ?? 0);
      let most = 0;
      if (policy.keepPerCheck !== undefined) {
        for (const id of checkIds) {
          most = Math.max(
            most,
            await count(
              `SELECT count(*) AS n FROM (SELECT 1 FROM chain WHERE kind = 'receipt' AND check_id = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3) AS past`,
              [id, atMost, Math.max(1, policy.keepPerCheck)],
            ),
          );
        }
      }
      if (policy.keepDays !== undefined && most < atMost) {
        most = Math.max(most, await count(OLD_CANDIDATES, [2 * atMost + checkIds.length, policy.now.getTime() - policy.keepDays * 86_400_000]));
      }
      return Math.min(most, atMost);
    });
  }

  appendSessionEntry(draft: SessionEntryDraft, options: AppendOptions = {}): Promise<StoredSessionEntry> {
    return this.guard(() =>
      inTransaction(this.pool, async (client) => {
        const head = await lockHead(client);
        const { text, signature } = link(draft, head.hash, options.sign);
        const { seq, hash } = await insertLocked(client, head, {
          id: draft.id,
          kind: draft.kind,
          checkId: null,
          manifest: null,
          createdAt: Date.parse(draft.at),
          text,
          signature,
          session: draft.session,
        });
        return { seq, hash, body: draft, intact: true };
      }),
    );
  }

  sessionEntries(session: string): Promise<StoredSessionEntry[]> {
    return this.guard(async () => {
      const rows = (await this.pool.query<ReceiptRow>('SELECT seq, id, hash, body FROM chain WHERE session = $1 ORDER BY seq', [session])).rows;
      return rows.flatMap((row) => {
        const body = parseBody<SessionEntryBody>(row.body);
        // As in SQLite: a damaged entry still shows the session was gated; its content is not trusted.
        return body === undefined ? [] : [{ seq: row.seq, hash: row.hash as Sha256, body, intact: intact(row.body, row.hash, body, row.id) }];
      });
    });
  }

  recentSessions(limit: number): Promise<string[]> {
    return this.guard(async () =>
      (
        await this.pool.query<{ session: string }>('SELECT session FROM chain WHERE session IS NOT NULL GROUP BY session ORDER BY max(seq) DESC LIMIT $1', [
          limit,
        ])
      ).rows.map((row) => row.session),
    );
  }

  entriesSince(since: Date, kinds: readonly ChainKind[]): Promise<RecentEntry[]> {
    return this.guard(async () => {
      const floor = since.getTime() - RECENT_SLACK_MS;
      const found: RecentEntry[] = [];
      // Backwards by seq, a page at a time; the body is read only for the kinds asked for.
      for (let below = Number.MAX_SAFE_INTEGER; ;) {
        const rows = (
          await this.pool.query<{ seq: string | number; kind: ChainKind; created_at: string | number; body: string | null }>(
            'SELECT seq, kind, created_at, CASE WHEN kind = ANY($1) THEN body END AS body FROM chain WHERE seq < $2 ORDER BY seq DESC LIMIT 500',
            [kinds, below],
          )
        ).rows;
        for (const row of rows) {
          const createdAt = Number(row.created_at);
          if (createdAt < floor) return found.reverse();
          if (row.body !== null && createdAt >= since.getTime())
            found.push({ seq: Number(row.seq), kind: row.kind, createdAt, body: parseRecentBody(row.body) });
        }
        if (rows.length < 500) return found.reverse();
        below = Number(rows[rows.length - 1]!.seq);
      }
    });
  }

  appendEvent<T extends SubjectEventBody>(draft: T, options: AppendEventOptions = {}): Promise<StoredEvent<T>> {
    return this.guard(() =>
      inTransaction(this.pool, async (client) => {
        const head = await lockHead(client);
        // Under the head lock every writer is serialised, so the subject's newest event cannot move before the insert.
        if (options.after !== undefined) {
          const newest = await client.query<{ id: string }>('SELECT id FROM chain WHERE kind = $1 AND subject = $2 ORDER BY seq DESC LIMIT 1', [
            draft.kind,
            draft.subject,
          ]);
          const latest = newest.rows[0]?.id ?? null;
          if (latest !== options.after) throw new EventConflict(draft.subject, latest);
        }
        const { text, signature } = link(draft, head.hash, options.sign);
        const { seq, hash } = await insertLocked(client, head, {
          id: draft.id,
          kind: draft.kind,
          checkId: null,
          manifest: null,
          createdAt: Date.parse(draft.at),
          text,
          signature,
          subject: draft.subject,
        });
        return { seq, hash, body: draft, signature, intact: true };
      }),
    );
  }

  events<T extends SubjectEventBody>(kind: T['kind'], subject: string): Promise<StoredEvent<T>[]> {
    return this.guard(async () => {
      const rows = (
        await this.pool.query<ReceiptRow>('SELECT seq, id, hash, body, signature FROM chain WHERE kind = $1 AND subject = $2 ORDER BY seq', [kind, subject])
      ).rows;
      // A damaged event is returned as such, never as what it claims.
      return rows.map((row) => readEvent<T>({ ...row, subject }, row.body, kind));
    });
  }

  latestEvents<T extends SubjectEventBody>(kind: T['kind'], limit: number): Promise<StoredEvent<T>[]> {
    return this.guard(async () => {
      const rows = (
        await this.pool.query<ReceiptRow & { subject: string }>(
          `SELECT c.seq, c.id, c.hash, c.body, c.signature, c.subject FROM chain c
           JOIN (SELECT max(seq) AS seq FROM chain WHERE kind = $1 AND subject IS NOT NULL GROUP BY subject) newest ON c.seq = newest.seq
           ORDER BY c.seq DESC LIMIT $2`,
          [kind, limit],
        )
      ).rows;
      return rows.map((row) => readEvent<T>(row, row.body, kind));
    });
  }

  subjects(kind: SubjectKind, limit: number): Promise<string[]> {
    return this.guard(async () =>
      (
        await this.pool.query<{ subject: string }>(
          'SELECT subject FROM chain WHERE kind = $1 AND subject IS NOT NULL GROUP BY subject ORDER BY max(seq) DESC LIMIT $2',
          [kind, limit],
        )
      ).rows.map((row) => row.subject),
    );
  }

  stats(): Promise<LedgerStats> {
    return this.guard(async () => {
      const row = (
        await this.pool.query<{ receipts: number; manifests: number; bytes: number }>(
          `SELECT (SELECT count(*) FROM chain WHERE kind = 'receipt') AS receipts,
                  (SELECT count(*) FROM manifests) AS manifests,
                  (SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0)::bigint
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE n.nspname = $1 AND c.relkind = 'r') AS bytes`,
          [this.at.schema],
        )
      ).rows[0]!;
      return { receipts: Number(row.receipts), manifests: Number(row.manifests), bytes: Number(row.bytes) };
    });
  }

  /** Pages through chain and pruned merged in (seq, state) order: 'live' sorts before 'pruned'. */
  async *entries(): AsyncGenerator<LedgerEntry> {
    let after: { seq: number; state: string } = { seq: -1, state: '' };
    for (;;) {
      const cursor = after;
      const rows = await this.guard(
        async () =>
          (
            await this.pool.query<EntryRow>(
              `SELECT * FROM (
                 SELECT 'live' AS state, seq, id, kind, check_id, manifest, hash, body, signature, NULL AS gc_id, subject FROM chain
                 UNION ALL
                 SELECT 'pruned' AS state, seq, id, NULL, NULL, NULL, hash, NULL, NULL, gc_id, NULL FROM pruned
               ) AS positions
               WHERE (seq, state) > ($1::bigint, $2::text)
               ORDER BY seq, state COLLATE "C" LIMIT $3`,
              [cursor.seq, cursor.state, this.pageSize],
            )
          ).rows,
      );
      for (const row of rows) yield toEntry(row);
      if (rows.length < this.pageSize) return;
      const last = rows[rows.length - 1]!;
      after = { seq: last.seq, state: last.state };
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
