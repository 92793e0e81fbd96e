import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLedger } from '../src/audit/audit.js';
import { canonicalize } from '../src/core/jcs.js';
import { sha256, type Sha256 } from '../src/core/digest.js';
import type { Ledger, LedgerEntry } from '../src/ledger/ledger.js';
import { postgresLocation } from '../src/ledger/location.js';
import { migrate } from '../src/ledger/postgres/migrate.js';
import { openPgLedger } from '../src/ledger/postgres/pg-ledger.js';
import { openPool, type PgLocation } from '../src/ledger/postgres/pool.js';
import { openSqliteLedger } from '../src/ledger/sqlite/sqlite-ledger.js';
import { editBody } from './helpers/ledger-db.js';
import { manifestDigest } from '../src/scope/manifest.js';
import { draftOf, manifestOf } from './helpers/drafts.js';
import { newId } from '../src/core/ids.js';
import type { TrailBody } from '../src/ledger/session-entries.js';
import type { SubjectEventBody } from '../src/ledger/events.js';
import { describePg, sql, tempDatabase, type TempDatabase } from './helpers/pg.js';
import { autoGc } from '../src/retention/auto.js';

/**
 * The Ledger contract (src/ledger/ledger.ts), run against every backend:
 * the same tests, the same answers. A backend is a way to open a fresh
 * ledger, open another handle on the same one, and run raw SQL on it (as an
 * attacker with the file or the database credentials could).
 */
interface Store {
  readonly open: () => Promise<Ledger>;
  readonly raw: (statement: string) => Promise<void>;
  /** Rewrites the text of one entry's body, in whatever form the backend stores it. */
  readonly editBody: (seq: number, edit: (text: string) => string) => Promise<void>;
}

interface Backend {
  fresh(): Promise<Store>;
  cleanup(): Promise<void>;
}

function sqliteBackend(): Backend {
  const dirs: string[] = [];
  return {
    fresh() {
      const dir = mkdtempSync(join(tmpdir(), 'vouch-contract-'));
      dirs.push(dir);
      const path = join(dir, 'ledger.db');
      return Promise.resolve({
        open: () => Promise.resolve(openSqliteLedger(path, { create: true })!),
        raw: (statement: string) => {
          const db = new Database(path);
          try {
            db.exec(statement);
          } finally {
            db.close();
          }
          return Promise.resolve();
        },
        editBody: (seq: number, edit: (text: string) => string) => {
          // SQLite may store a receipt's body compressed (body-store.ts): decoded, edited, stored as text.
          const db = new Database(path);
          try {
            editBody(db, seq, edit);
          } finally {
            db.close();
          }
          return Promise.resolve();
        },
      });
    },
    cleanup() {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

function postgresBackend(): Backend {
  let database: TempDatabase | undefined;
  let count = 0;
  return {
    async fresh() {
      database ??= await tempDatabase();
      // One schema per test: each its own chain, in one database.
      const located = postgresLocation(`${database.url}?schema=contract_${++count}`, 'flag');
      if (!located.ok || located.value.kind !== 'postgres') throw new Error('bad test URL');
      const at: PgLocation = located.value;
      const pool = await openPool(at, 1);
      await migrate(pool, at).finally(() => pool.end());
      const url = database.url;
      return {
        open: () => openPgLedger(at, { pageSize: 7 }),
        raw: async (statement: string) => {
          await sql(url, `SET search_path TO ${at.schema}; ${statement}`);
        },
        editBody: async (seq: number, edit: (text: string) => string) => {
          const [row] = await sql<{ body: string }>(url, `SELECT body FROM ${at.schema}.chain WHERE seq = $1`, [seq]);
          await sql(url, `UPDATE ${at.schema}.chain SET body = $1 WHERE seq = $2`, [edit(row!.body), seq]);
        },
      };
    },
    async cleanup() {
      await database?.drop();
    },
  };
}

/** An agent's tool call as the hooks record it, in session `session`. */
function autoTrail(session: string, at: Date, n: number): TrailBody {
  return {
    v: 1,
    kind: 'trail',
    id: newId(at.getTime() + n),
    at: at.toISOString(),
    session,
    client: 'claude-code',
    event: 'PostToolUse',
    agent_id: null,
    untrusted: true,
    tool: 'Write',
    tool_use_id: `t${n}`,
    input_sha256: null,
    response_sha256: null,
    exit_code: null,
    duration_ms: null,
    paths: ['src/a.ts'],
    opaque_writes: false,
  };
}

async function all(ledger: Ledger): Promise<LedgerEntry[]> {
  const out: LedgerEntry[] = [];
  for await (const entry of ledger.entries()) out.push(entry);
  return out;
}

function contract(name: string, backend: Backend): void {
  const opened: Ledger[] = [];
  const fresh = async () => {
    const store = await backend.fresh();
    const ledger = await store.open();
    opened.push(ledger);
    return {
      ledger,
      raw: store.raw,
      editBody: store.editBody,
      another: async () => {
        const other = await store.open();
        opened.push(other);
        return other;
      },
    };
  };
  afterAll(async () => {
    for (const ledger of opened) await ledger.close().catch(() => undefined);
    await backend.cleanup();
  });

  describe(`the ${name} ledger`, () => {
    it('starts empty: no receipts, no entries, nothing found', async () => {
      const { ledger } = await fresh();
      expect((await ledger.latestReceipts(['t'])).size).toBe(0);
      expect(await all(ledger)).toEqual([]);
      expect(await ledger.findReceipt('01m8p4')).toEqual({ kind: 'none' });
      expect(await ledger.listReceipts({ limit: 10 })).toEqual([]);
      expect((await ledger.stats()).receipts).toBe(0);
    });

    it('numbers entries from 1 and chains each to the one before by the hash of its canonical body', async () => {
      const { ledger } = await fresh();
      const stored = [];
      for (let i = 0; i < 4; i++) stored.push(await ledger.appendReceipt(draftOf('t', manifestOf(`m${i}`)), manifestOf(`m${i}`)));
      expect(stored.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
      let prev: string | null = null;
      for (const receipt of stored) {
        expect(receipt.body.prev_hash).toBe(prev);
        expect(receipt.hash).toBe(sha256(canonicalize(receipt.body)));
        expect(receipt.intact).toBe(true);
        prev = receipt.hash;
      }
      const entries = await all(ledger);
      expect(entries.map((e) => [e.state, e.seq])).toEqual([
        ['live', 1],
        ['live', 2],
        ['live', 3],
        ['live', 4],
      ]);
      const last = entries[3]!;
      expect(last.state === 'live' && last.body).toBe(canonicalize(stored[3]!.body));
      expect(last.state === 'live' && [last.kind, last.checkId, last.manifest]).toEqual(['receipt', 't', manifestDigest(manifestOf('m3'))]);
    });

    it('finds the PASS receipts of a check by fingerprint, newest first, through its index: never a FAIL, another check or another fingerprint', async () => {
      const { ledger } = await fresh();
      const a = manifestOf('state a');
      const first = await ledger.appendReceipt(draftOf('t', a), a);
      await ledger.appendReceipt(draftOf('t', a, new Date(), 'FAIL'), a);
      await ledger.appendReceipt(draftOf('other', a), a);
      await ledger.appendReceipt(draftOf('t', manifestOf('state b')), manifestOf('state b'));
      const second = await ledger.appendReceipt(draftOf('t', a), a);
      const found = await ledger.passesOf('t', first.body.fingerprint, 8);
      expect(found.map((r) => r.body.id)).toEqual([second.body.id, first.body.id]);
      expect(found.every((r) => r.intact && r.body.verdict === 'PASS')).toBe(true);
      expect((await ledger.passesOf('t', first.body.fingerprint, 1)).map((r) => r.body.id)).toEqual([second.body.id]);
      expect(await ledger.passesOf('t', sha256('no such state'), 8)).toEqual([]);
    });

    it('stores a manifest once per digest and gives it back exactly', async () => {
      const { ledger } = await fresh();
      const manifest = manifestOf('same');
      for (let i = 0; i < 3; i++) await ledger.appendReceipt(draftOf('t', manifest), manifest);
      await ledger.appendReceipt(draftOf('t', manifestOf('other')), manifestOf('other'));
      expect(await ledger.stats()).toMatchObject({ receipts: 4, manifests: 2 });
      expect(await ledger.getManifest(manifestDigest(manifest))).toEqual(manifest);
      expect(await ledger.getManifest(sha256('nothing'))).toBeUndefined();
    });

    it('refuses a receipt whose manifest_digest is not its manifest, and records nothing', async () => {
      const { ledger } = await fresh();
      await expect(ledger.appendReceipt(draftOf('t', manifestOf('a')), manifestOf('b'))).rejects.toThrow(/manifest_digest/);
      expect(await all(ledger)).toEqual([]);
    });

    it('answers the latest receipt of each named check, and nothing for a check that never ran', async () => {
      const { ledger } = await fresh();
      await ledger.appendReceipt(draftOf('a', manifestOf('1')), manifestOf('1'));
      const b = await ledger.appendReceipt(draftOf('b', manifestOf('2')), manifestOf('2'));
      const a2 = await ledger.appendReceipt(draftOf('a', manifestOf('3'), new Date(), 'FAIL'), manifestOf('3'));
      const latest = await ledger.latestReceipts(['a', 'b', 'never']);
      expect([...latest.keys()].sort()).toEqual(['a', 'b']);
      expect(latest.get('a')).toEqual(a2);
      expect(latest.get('b')).toEqual(b);
    });

    it('finds a receipt by id or unique prefix (any case), says when a prefix is ambiguous, and never finds a gc record', async () => {
      const { ledger } = await fresh();
      const at = new Date('2026-11-30T10:00:00Z');
      const one = await ledger.appendReceipt(draftOf('t', manifestOf('1'), at), manifestOf('1'));
      const two = await ledger.appendReceipt(draftOf('t', manifestOf('2'), at), manifestOf('2'));
      expect(await ledger.findReceipt(one.body.id)).toEqual({ kind: 'found', receipt: one });
      expect(await ledger.findReceipt(two.body.id.slice(0, 14).toUpperCase())).toEqual({ kind: 'found', receipt: two });
      // The short form people see is the end of an id (its random part): found by suffix too.
      expect(await ledger.findReceipt(one.body.id.slice(-8))).toEqual({ kind: 'found', receipt: one });
      expect(await ledger.findReceipt(two.body.id.slice(-6).toUpperCase())).toEqual({ kind: 'found', receipt: two });
      const shared = one.body.id.slice(0, 10);
      const ambiguous = await ledger.findReceipt(shared);
      expect(ambiguous.kind).toBe('ambiguous');
      expect(ambiguous.kind === 'ambiguous' && [...ambiguous.ids].sort()).toEqual([one.body.id, two.body.id].sort());
      expect(await ledger.findReceipt('zzzzzzzz')).toEqual({ kind: 'none' });
      const gc = await ledger.gc({ now: new Date(), keepPerCheck: 1 });
      expect(await ledger.findReceipt(gc.gcEntryId!)).toEqual({ kind: 'none' });
    });

    it('gc reports the stored logs of the receipts it removed, not of those it kept', async () => {
      const { ledger } = await fresh();
      const withLog = (seed: string) => ({ ...draftOf('t', manifestOf(seed)), log: { sha256: sha256(seed), bytes: 1 } });
      const first = await ledger.appendReceipt(withLog('a'), manifestOf('a'));
      await ledger.appendReceipt(draftOf('t', manifestOf('b')), manifestOf('b'));
      const kept = await ledger.appendReceipt(withLog('c'), manifestOf('c'));
      expect(kept.body.log).toEqual({ sha256: sha256('c'), bytes: 1 });
      const gc = await ledger.gc({ now: new Date(), keepPerCheck: 1 });
      expect(gc.removed).toBe(2);
      expect(gc.releasedLogs).toEqual([{ receipt: first.body.id, sha256: sha256('a') }]);
      // A receipt with a log reads back with it, and hashes as stored.
      const [latest] = await ledger.listReceipts({ limit: 1 });
      expect(latest).toEqual(kept);
    });

    it('lists receipts newest first, by check, since a time, after a seq, up to a limit', async () => {
      const { ledger } = await fresh();
      const times = ['2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01'].map((d) => new Date(`${d}T00:00:00Z`));
      const stored = [];
      for (const [i, at] of times.entries()) stored.push(await ledger.appendReceipt(draftOf(i % 2 ? 'b' : 'a', manifestOf(`${i}`), at), manifestOf(`${i}`)));
      expect((await ledger.listReceipts({ limit: 10 })).map((r) => r.seq)).toEqual([4, 3, 2, 1]);
      expect((await ledger.listReceipts({ limit: 2 })).map((r) => r.seq)).toEqual([4, 3]);
      expect((await ledger.listReceipts({ limit: 10, checkId: 'a' })).map((r) => r.seq)).toEqual([3, 1]);
      expect((await ledger.listReceipts({ limit: 10, since: times[2]! })).map((r) => r.seq)).toEqual([4, 3]);
      expect((await ledger.listReceipts({ limit: 10, checkId: 'b', since: times[2]! })).map((r) => r.seq)).toEqual([4]);
      // A card's "no FAIL since the PASS" reads exactly the receipts after one, whatever their number.
      expect((await ledger.listReceipts({ limit: 10, afterSeq: 1 })).map((r) => r.seq)).toEqual([4, 3, 2]);
      expect((await ledger.listReceipts({ limit: 10, checkId: 'a', afterSeq: 1 })).map((r) => r.seq)).toEqual([3]);
      expect(await ledger.listReceipts({ limit: 10, afterSeq: 4 })).toEqual([]);
    });

    it('signs inside the append: the signer sees exactly the canonical body the hash covers, prev_hash included', async () => {
      const { ledger } = await fresh();
      const first = await ledger.appendReceipt(draftOf('t', manifestOf('1')), manifestOf('1'));
      const seen: string[] = [];
      const signed = await ledger.appendReceipt(draftOf('t', manifestOf('2')), manifestOf('2'), {
        sign: (body) => {
          seen.push(body);
          return `sig:${sha256(body)}`;
        },
      });
      expect(seen).toHaveLength(1);
      expect(sha256(seen[0]!)).toBe(signed.hash);
      expect(JSON.parse(seen[0]!).prev_hash).toBe(first.hash);
      expect(signed.signature).toBe(`sig:${signed.hash}`);
      expect((await ledger.latestReceipts(['t'])).get('t')!.signature).toBe(`sig:${signed.hash}`);
      const entries = await all(ledger);
      expect(entries[1]!.state === 'live' && entries[1]!.signature).toBe(`sig:${signed.hash}`);
    });

    it('gc keeps the latest receipt of every check, leaves pruned traces and records the removal in the chain', async () => {
      const { ledger } = await fresh();
      for (let i = 0; i < 3; i++) await ledger.appendReceipt(draftOf('a', manifestOf(`a${i}`)), manifestOf(`a${i}`));
      const b = await ledger.appendReceipt(draftOf('b', manifestOf('b')), manifestOf('b'));
      const result = await ledger.gc({ now: new Date(), keepPerCheck: 1, sign: () => 'gc-signature' });
      expect(result).toMatchObject({ removed: 2, manifestsRemoved: 2 });
      const latest = await ledger.latestReceipts(['a', 'b']);
      expect(latest.get('a')!.seq).toBe(3);
      expect(latest.get('b')).toEqual(b);
      const entries = await all(ledger);
      expect(entries.map((e) => [e.seq, e.state])).toEqual([
        [1, 'pruned'],
        [2, 'pruned'],
        [3, 'live'],
        [4, 'live'],
        [5, 'live'],
      ]);
      const gcEntry = entries[4]!;
      if (gcEntry.state !== 'live') throw new Error('expected a live gc entry');
      expect(gcEntry.kind).toBe('gc');
      expect(gcEntry.signature).toBe('gc-signature');
      const body = JSON.parse(gcEntry.body);
      expect(body).toMatchObject({ kind: 'gc', removed: 2, first_seq: 1, last_seq: 2, prev_hash: b.hash });
      const pruned = entries.filter((e) => e.state === 'pruned');
      expect(body.removed_digest).toBe(sha256(pruned.map((e) => `${e.seq}:${e.hash}\n`).join('')));
      expect(pruned.every((e) => e.state === 'pruned' && e.gcId === result.gcEntryId)).toBe(true);
      // Appends go on after the gc record, never reusing a removed seq.
      const next = await ledger.appendReceipt(draftOf('a', manifestOf('next')), manifestOf('next'));
      expect(next.seq).toBe(6);
      expect(next.body.prev_hash).toBe(gcEntry.hash);
      expect(await ledger.gc({ now: new Date(), keepDays: 1 })).toEqual({ removed: 0, trailRemoved: 0, manifestsRemoved: 0, gcEntryId: null });
      expect(await ledger.gc({ now: new Date() })).toEqual({ removed: 0, trailRemoved: 0, manifestsRemoved: 0, gcEntryId: null });
    });

    it('gc by age removes only receipts older than the cutoff, never the latest of a check', async () => {
      const { ledger } = await fresh();
      const old = new Date('2020-01-01T00:00:00Z');
      await ledger.appendReceipt(draftOf('a', manifestOf('1'), old), manifestOf('1'));
      await ledger.appendReceipt(draftOf('a', manifestOf('2'), old), manifestOf('2'));
      await ledger.appendReceipt(draftOf('b', manifestOf('3'), old), manifestOf('3'));
      await ledger.appendReceipt(draftOf('a', manifestOf('4')), manifestOf('4'));
      const result = await ledger.gc({ now: new Date(), keepDays: 30 });
      expect(result.removed).toBe(2);
      expect([...(await ledger.latestReceipts(['a', 'b'])).values()].map((r) => r.seq).sort()).toEqual([3, 4]);
    });

    it('gc by age also removes agent trail entries older than the cutoff, never gate decisions or events; audit stays clean', async () => {
      const { ledger } = await fresh();
      const old = new Date('2020-01-01T00:00:00Z');
      const recent = new Date();
      const trail = (at: Date, n: number): TrailBody => ({
        v: 1,
        kind: 'trail',
        id: newId(at.getTime() + n),
        at: at.toISOString(),
        session: 's1',
        client: 'claude-code',
        event: 'PostToolUse',
        agent_id: null,
        untrusted: true,
        tool: 'Write',
        tool_use_id: `t${n}`,
        input_sha256: null,
        response_sha256: null,
        exit_code: null,
        duration_ms: null,
        paths: ['src/a.ts'],
        opaque_writes: false,
      });
      await ledger.appendReceipt(draftOf('a', manifestOf('1'), old), manifestOf('1'));
      await ledger.appendSessionEntry(trail(old, 1));
      await ledger.appendSessionEntry(trail(old, 2));
      await ledger.appendEvent({ v: 1, kind: 'card', id: newId(old.getTime()), at: old.toISOString(), subject: 'c1', event: 'opened' });
      await ledger.appendSessionEntry(trail(recent, 3));
      const result = await ledger.gc({ now: recent, keepDays: 30 });
      // The only receipt of its check stays; the two old trail entries go; the card event and the recent trail stay.
      expect(result).toMatchObject({ removed: 2, trailRemoved: 2 });
      expect((await ledger.sessionEntries('s1')).map((e) => e.seq)).toEqual([5]);
      expect((await ledger.events('card', 'c1')).map((e) => e.seq)).toEqual([4]);
      const report = await auditLedger(ledger, { keyring: new Map(), requireSignature: false });
      expect(report.findings).toEqual([]);
      expect(report).toMatchObject({ gcRecords: 1, pruned: 2 });
      // keep-per-check alone never touches the trail.
      await ledger.appendSessionEntry(trail(old, 6));
      expect(await ledger.gc({ now: recent, keepPerCheck: 1 })).toMatchObject({ removed: 0, trailRemoved: 0 });
    });

    it('gc that prunes the newest entries (old trail at the end of the chain) never gives their seq again, and audit stays intact through later appends', async () => {
      const { ledger } = await fresh();
      const old = new Date('2020-01-01T00:00:00Z');
      const trail = (n: number): TrailBody => ({
        v: 1,
        kind: 'trail',
        id: newId(old.getTime() + n),
        at: old.toISOString(),
        session: 's1',
        client: 'claude-code',
        event: 'PostToolUse',
        agent_id: null,
        untrusted: true,
        tool: 'Write',
        tool_use_id: `t${n}`,
        input_sha256: null,
        response_sha256: null,
        exit_code: null,
        duration_ms: null,
        paths: ['a.txt'],
        opaque_writes: false,
      });
      await ledger.appendReceipt(draftOf('a', manifestOf('1')), manifestOf('1'));
      await ledger.appendSessionEntry(trail(1));
      await ledger.appendSessionEntry(trail(2));
      const result = await ledger.gc({ now: new Date(), keepDays: 0 });
      expect(result).toMatchObject({ trailRemoved: 2 });
      const after = await ledger.appendReceipt(draftOf('a', manifestOf('2')), manifestOf('2'));
      await ledger.appendSessionEntry(trail(3));
      await ledger.gc({ now: new Date(), keepDays: 0 });
      const entries: LedgerEntry[] = [];
      for await (const entry of ledger.entries()) entries.push(entry);
      const seqs = entries.map((entry) => entry.seq);
      // receipt 1 (pruned by the second gc, being no longer the latest), trail 2-3 pruned, gc 4, receipt 5, trail 6 pruned, gc 7: each seq once.
      expect(seqs).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(after.seq).toBe(5);
      const report = await auditLedger(ledger, { keyring: new Map(), requireSignature: false });
      expect(report.findings).toEqual([]);
      expect(report).toMatchObject({ gcRecords: 2, pruned: 4, receipts: 1 });
    });

    it('gcCandidates says how far over policy the ledger is, stopping at what it is asked, never more than gc then selects, never counting the latest of a check', async () => {
      const { ledger } = await fresh();
      const old = new Date('2020-01-01T00:00:00Z');
      for (let i = 0; i < 4; i++) await ledger.appendReceipt(draftOf('a', manifestOf(`a${i}`)), manifestOf(`a${i}`));
      await ledger.appendReceipt(draftOf('b', manifestOf('b'), old), manifestOf('b'));
      await ledger.appendSessionEntry(autoTrail('s1', old, 1));
      const now = new Date();
      expect(await ledger.gcCandidates({ now, keepPerCheck: 1 }, ['a', 'b'], 100)).toBe(3);
      expect(await ledger.gcCandidates({ now, keepPerCheck: 1 }, ['a', 'b'], 2)).toBe(2);
      expect(await ledger.gcCandidates({ now, keepPerCheck: 1 }, ['b'], 100)).toBe(0);
      // By age: b's only receipt is old but the latest of its check; the old trail entry counts.
      expect(await ledger.gcCandidates({ now, keepDays: 30 }, ['a', 'b'], 100)).toBe(1);
      expect(await ledger.gcCandidates({ now }, ['a', 'b'], 100)).toBe(0);
      const both = await ledger.gcCandidates({ now, keepPerCheck: 1, keepDays: 30 }, ['a', 'b'], 100);
      expect(both).toBe(3);
      // It removes nothing itself; gc then selects at least as many.
      expect((await all(ledger)).every((entry) => entry.state === 'live')).toBe(true);
      expect((await ledger.gc({ now, keepPerCheck: 1, keepDays: 30 })).removed).toBe(4);
      expect(await ledger.gcCandidates({ now, keepPerCheck: 1, keepDays: 30 }, ['a', 'b'], 100)).toBe(0);
    });

    it('gc with maxRemove removes the oldest that many, says how many wait, and audit is intact after each bounded run', async () => {
      const { ledger } = await fresh();
      for (let i = 0; i < 6; i++) await ledger.appendReceipt(draftOf('a', manifestOf(`a${i}`)), manifestOf(`a${i}`));
      const first = await ledger.gc({ now: new Date(), keepPerCheck: 1, maxRemove: 2, auto: true });
      expect(first).toMatchObject({ removed: 2, deferred: 3 });
      const entries = await all(ledger);
      expect(entries.filter((e) => e.state === 'pruned').map((e) => e.seq)).toEqual([1, 2]);
      const record = entries.find((e) => e.state === 'live' && e.kind === 'gc');
      expect(record?.state === 'live' && JSON.parse(record.body)).toMatchObject({ kind: 'gc', auto: true, removed: 2, first_seq: 1, last_seq: 2 });
      const second = await ledger.gc({ now: new Date(), keepPerCheck: 1, maxRemove: 2 });
      expect(second).toMatchObject({ removed: 2, deferred: 1 });
      const third = await ledger.gc({ now: new Date(), keepPerCheck: 1, maxRemove: 2 });
      expect(third.removed).toBe(1);
      expect(third.deferred).toBeUndefined();
      const report = await auditLedger(ledger, { keyring: new Map(), requireSignature: false });
      expect(report.findings).toEqual([]);
      expect(report).toMatchObject({ gcRecords: 3, pruned: 5, receipts: 1 });
    });

    it("the automatic gc runs only over its threshold, bounded, keeps an unstopped session's trail, and waits while such a session is active", async () => {
      const { ledger } = await fresh();
      const home = mkdtempSync(join(tmpdir(), 'vouch-auto-home-'));
      const old = new Date('2020-01-01T00:00:00Z');
      const retention = { days: 30, perCheck: 1, logDays: null, logs: true, auto: 3 };
      for (let i = 0; i < 3; i++) await ledger.appendReceipt(draftOf('a', manifestOf(`a${i}`)), manifestOf(`a${i}`));
      // Two candidates, threshold three: not due, nothing recorded.
      expect(await autoGc(ledger, ['a'], { retention, home, now: new Date() })).toEqual({ kind: 'not_due' });
      // An old, unstopped session: its trail is kept, and, quiet for years, it does not hold the gc.
      await ledger.appendSessionEntry(autoTrail('quiet', old, 1));
      await ledger.appendReceipt(draftOf('a', manifestOf('a3')), manifestOf('a3'));
      const ran = await autoGc(ledger, ['a'], { retention, home, now: new Date(), maxRows: 2 });
      expect(ran).toMatchObject({ kind: 'ran', candidates: 3, result: { removed: 2, retained: 1, deferred: 1, trailRemoved: 0 } });
      expect((await ledger.sessionEntries('quiet')).length).toBe(1);
      // A session not seen stopping, active a minute ago: the gc waits, records nothing.
      await ledger.appendSessionEntry(autoTrail('busy', new Date(Date.now() - 60_000), 2));
      await ledger.appendReceipt(draftOf('a', manifestOf('a4')), manifestOf('a4'));
      await ledger.appendReceipt(draftOf('a', manifestOf('a5')), manifestOf('a5'));
      const before = (await all(ledger)).length;
      expect(await autoGc(ledger, ['a'], { retention, home, now: new Date() })).toMatchObject({
        kind: 'deferred',
        why: 'session_active',
        detail: expect.stringContaining('busy'),
      });
      expect((await all(ledger)).length).toBe(before);
      // An hour and more later the session is taken as gone (its trail still kept); a slow read of what must stay waits too.
      const later = new Date(Date.now() + 2 * 60 * 60 * 1000);
      let tick = 0;
      expect(await autoGc(ledger, ['a'], { retention, home, now: later, clock: () => (tick += 5_000) })).toMatchObject({
        kind: 'deferred',
        why: 'over_budget',
      });
      const done = await autoGc(ledger, ['a'], { retention, home, now: later });
      expect(done).toMatchObject({ kind: 'ran', result: { removed: 3 } });
      expect((await ledger.sessionEntries('busy')).length).toBe(1);
      const report = await auditLedger(ledger, { keyring: new Map(), requireSignature: false });
      expect(report.findings).toEqual([]);
      expect(report).toMatchObject({ gcRecords: 2, receipts: 1 });
      rmSync(home, { recursive: true, force: true });
    });

    it('an intact chain audits clean, across pages of entries', async () => {
      const { ledger } = await fresh();
      for (let i = 0; i < 20; i++) await ledger.appendReceipt(draftOf(`c${i % 3}`, manifestOf(`${i}`)), manifestOf(`${i}`));
      await ledger.gc({ now: new Date(), keepPerCheck: 2 });
      await ledger.appendReceipt(draftOf('c0', manifestOf('last')), manifestOf('last'));
      const report = await auditLedger(ledger, { keyring: new Map(), requireSignature: false });
      expect(report.findings).toEqual([]);
      expect(report).toMatchObject({ entries: 22, receipts: 7, gcRecords: 1, pruned: 14 });
    });

    it('tampering is caught: an edited body reads as not intact and audits as body_altered; a deleted row is a gap', async () => {
      const { ledger, raw, editBody: edit } = await fresh();
      for (let i = 0; i < 4; i++) await ledger.appendReceipt(draftOf('t', manifestOf(`${i}`), new Date(), 'FAIL'), manifestOf(`${i}`));
      await edit(4, (text) => text.replace('"verdict":"FAIL"', '"verdict":"PASS"'));
      await raw('DELETE FROM chain WHERE seq = 2');
      expect((await ledger.latestReceipts(['t'])).get('t')!.intact).toBe(false);
      const report = await auditLedger(ledger, { keyring: new Map(), requireSignature: false });
      expect(report.findings.map((f) => [f.seq, f.code])).toEqual([
        [3, 'gap'],
        [4, 'body_altered'],
      ]);
    });

    it('session entries and subject events are chain entries: appended in order, read back by session or subject, damaged ones flagged', async () => {
      const { ledger, raw, editBody: edit } = await fresh();
      const at = new Date();
      const trail = (session: string, n: number): TrailBody => ({
        v: 1,
        kind: 'trail',
        id: newId(at.getTime() + n),
        at: at.toISOString(),
        session,
        client: 'claude-code',
        event: 'PostToolUse',
        agent_id: null,
        untrusted: true,
        tool: 'Write',
        tool_use_id: `t${n}`,
        input_sha256: null,
        response_sha256: null,
        exit_code: null,
        duration_ms: null,
        paths: ['src/a.ts'],
        opaque_writes: false,
      });
      const note = (subject: string, text: string): SubjectEventBody & { note: string } => ({
        v: 1,
        kind: 'card',
        id: newId(),
        at: at.toISOString(),
        subject,
        event: 'noted',
        note: text,
      });
      await ledger.appendReceipt(draftOf('t', manifestOf('1')), manifestOf('1'));
      const first = await ledger.appendSessionEntry(trail('s1', 1));
      await ledger.appendSessionEntry(trail('s2', 2));
      await ledger.appendSessionEntry(trail('s1', 3));
      const event = await ledger.appendEvent(note('c1', 'honest'));
      await ledger.appendEvent(note('c2', 'other'));
      expect(first.seq).toBe(2);
      expect((await ledger.sessionEntries('s1')).map((e) => [e.seq, e.intact])).toEqual([
        [2, true],
        [4, true],
      ]);
      expect(await ledger.recentSessions(10)).toEqual(['s1', 's2']);
      expect(await ledger.subjects('card', 10)).toEqual(['c2', 'c1']);
      expect(await ledger.subjects('dispatch', 10)).toEqual([]);
      expect((await ledger.events('card', 'c1')).map((e) => [e.seq, e.intact])).toEqual([[event.seq, true]]);
      const entries = await all(ledger);
      expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(entries[3]!.state === 'live' && JSON.parse(entries[3]!.body).prev_hash).toBe(entries[2]!.hash);
      // An event moved to another subject by its column alone is a row mismatch.
      await raw(`UPDATE chain SET subject = 'c9' WHERE seq = ${event.seq + 1}`);
      expect((await auditLedger(ledger, { keyring: new Map(), requireSignature: false })).findings.map((f) => [f.seq, f.code])).toEqual([
        [event.seq + 1, 'row_mismatch'],
      ]);
      await raw(`UPDATE chain SET subject = 'c2' WHERE seq = ${event.seq + 1}`);
      await edit(event.seq, (text) => text.replace('honest', 'forged'));
      expect((await ledger.events('card', 'c1'))[0]!.intact).toBe(false);
      expect((await auditLedger(ledger, { keyring: new Map(), requireSignature: false })).findings.map((f) => [f.seq, f.code])).toEqual([
        [event.seq, 'body_altered'],
      ]);
    });

    it("compare-and-append: an event is written only after the subject's newest event it names; racing writers, one wins", async () => {
      const { ledger, another } = await fresh();
      const at = new Date().toISOString();
      const ev = (subject: string, n: string): SubjectEventBody & { n: string } => ({ v: 1, kind: 'dispatch', id: newId(), at, subject, event: 'e', n });
      const first = await ledger.appendEvent(ev('d1', 'one'), { after: null });
      await expect(ledger.appendEvent(ev('d1', 'again first'), { after: null })).rejects.toMatchObject({ name: 'EventConflict', latest: first.body.id });
      await ledger.appendEvent(ev('d2', 'another subject'), { after: null });
      const other = await another();
      const race = await Promise.allSettled([
        ledger.appendEvent(ev('d1', 'a'), { after: first.body.id }),
        other.appendEvent(ev('d1', 'b'), { after: first.body.id }),
      ]);
      expect(race.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(race.filter((r) => r.status === 'rejected').map((r) => r.reason.name)).toEqual(['EventConflict']);
      expect((await ledger.events('dispatch', 'd1')).map((e) => e.body.id)).toHaveLength(2);
      expect((await auditLedger(ledger, { keyring: new Map(), requireSignature: false })).findings).toEqual([]);
    });

    it("latestEvents: each subject's newest event, most recently active first, a damaged one flagged", async () => {
      const { ledger, raw } = await fresh();
      const at = new Date().toISOString();
      const ev = (subject: string, n: string): SubjectEventBody & { n: string } => ({ v: 1, kind: 'dispatch', id: newId(), at, subject, event: 'e', n });
      await ledger.appendEvent(ev('d1', 'one'));
      await ledger.appendEvent(ev('d2', 'two-a'));
      await ledger.appendEvent(ev('d1', 'one-b'));
      const newest = await ledger.appendEvent(ev('d2', 'two-b'));
      await ledger.appendEvent({ ...ev('c1', 'a card'), kind: 'card' });
      const read = async () => (await ledger.latestEvents<SubjectEventBody & { n: string }>('dispatch', 10)).map((e) => [e.body.subject, e.body.n, e.intact]);
      expect(await read()).toEqual([
        ['d2', 'two-b', true],
        ['d1', 'one-b', true],
      ]);
      expect((await ledger.latestEvents('dispatch', 1)).map((e) => e.body.subject)).toEqual(['d2']);
      await raw(`UPDATE chain SET body = replace(body, 'two-b', 'forged') WHERE seq = ${newest.seq}`);
      expect((await ledger.latestEvents('dispatch', 10)).map((e) => [e.body.subject, e.intact])).toEqual([
        ['d2', false],
        ['d1', true],
      ]);
    });

    it('entriesSince: the entries of the kinds asked for appended since a time, oldest first, bodies parsed; it stops walking at older entries', async () => {
      const { ledger, raw } = await fresh();
      const old = new Date('2020-01-01T00:00:00Z');
      const since = new Date(Date.now() - 60_000);
      const event = (kind: 'card' | 'dispatch', at: Date, subject: string): SubjectEventBody => ({
        v: 1,
        kind,
        id: newId(at.getTime()),
        at: at.toISOString(),
        subject,
        event: 'decision',
      });
      await ledger.appendEvent(event('card', old, 'c-old'));
      await ledger.appendReceipt(draftOf('a', manifestOf('1')), manifestOf('1'));
      const card = await ledger.appendEvent(event('card', new Date(), 'c1'));
      await ledger.appendReceipt(draftOf('a', manifestOf('2')), manifestOf('2'));
      await ledger.gc({ now: new Date(), keepPerCheck: 1 });
      const dispatch = await ledger.appendEvent(event('dispatch', new Date(), 'd1'));
      const found = await ledger.entriesSince(since, ['gc', 'card', 'dispatch']);
      expect(found.map((e) => [e.kind, e.body?.subject ?? null])).toEqual([
        ['card', 'c1'],
        ['gc', null],
        ['dispatch', 'd1'],
      ]);
      expect(found[0]!.seq).toBe(card.seq);
      expect(found[2]!.seq).toBe(dispatch.seq);
      expect((await ledger.entriesSince(since, ['dispatch'])).map((e) => e.seq)).toEqual([dispatch.seq]);
      expect(await ledger.entriesSince(new Date(Date.now() + 60_000), ['gc', 'card', 'dispatch'])).toEqual([]);
      // A body that no longer parses is returned as such, never as what it claims.
      await raw(`UPDATE chain SET body = 'not json' WHERE seq = ${dispatch.seq}`);
      expect((await ledger.entriesSince(since, ['dispatch']))[0]).toMatchObject({ seq: dispatch.seq, body: null });
    });

    it('concurrent appenders on separate connections lose nothing and never fork the chain', async () => {
      const { ledger, another } = await fresh();
      const writers = [ledger, await another(), await another()];
      const stored = await Promise.all(
        writers.flatMap((writer, w) =>
          Array.from({ length: 15 }, (_, i) => writer.appendReceipt(draftOf(`w${w}`, manifestOf(`${w}-${i}`)), manifestOf(`${w}-${i}`))),
        ),
      );
      expect(stored.map((r) => r.seq).sort((x, y) => x - y)).toEqual(Array.from({ length: 45 }, (_, i) => i + 1));
      const entries = await all(ledger);
      let prev: string | null = null;
      for (const entry of entries) {
        if (entry.state !== 'live') throw new Error('unexpected pruned entry');
        expect(JSON.parse(entry.body).prev_hash).toBe(prev);
        prev = entry.hash;
      }
      expect(new Set(entries.map((e) => e.hash as Sha256)).size).toBe(45);
    });
  });
}

contract('SQLite', sqliteBackend());

describePg('PostgreSQL', () => {
  let backend: Backend;
  beforeAll(() => {
    backend = postgresBackend();
  });
  describe('contract', () => {
    // The suite is declared now and the backend made when it runs; a thin proxy bridges the two.
    contract('PostgreSQL', {
      fresh: () => backend.fresh(),
      cleanup: () => backend.cleanup(),
    });
  });
});
