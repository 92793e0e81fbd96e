import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteLedger, type SqliteLedger } from '../ledger/sqlite/sqlite-ledger.js';
import { DISPATCH_STATES } from './states.js';
import { Dispatches } from './store.js';
import { dispatchIn, draftOf, legal, WRITER } from './testing.js';

const dirs: string[] = [];
const open: SqliteLedger[] = [];
afterEach(async () => {
  for (const ledger of open.splice(0)) await ledger.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function ledger(): { store: Dispatches; path: string; ledger: SqliteLedger } {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-fleet-'));
  dirs.push(dir);
  const path = join(dir, 'ledger.db');
  const l = openSqliteLedger(path, { create: true })!;
  open.push(l);
  return { store: new Dispatches(l), path, ledger: l };
}

const PAIRS = DISPATCH_STATES.flatMap((from) => DISPATCH_STATES.map((to) => [from, to] as const));

describe('transitions on the ledger (every pair, on real SQLite)', () => {
  it.each(PAIRS)('%s → %s', async (from, to) => {
    const { store } = ledger();
    const dispatch = await dispatchIn(store, from);
    const before = dispatch.transitions.length;
    const result = await store.move(dispatch.id, draftOf(to), WRITER);
    const after = (await store.get(dispatch.id))!;
    if (legal(from, to)) {
      expect(result.ok).toBe(true);
      expect([after.state, after.transitions.length, after.transitions[before]!.from]).toEqual([to, before + 1, from]);
    } else {
      expect(result).toMatchObject({ ok: false, error: { kind: 'illegal', to } });
      // Refused means nothing written.
      expect([after.state, after.transitions.length]).toEqual([from, before]);
    }
  });

  it('a first transition that is not `dispatched` is refused, and a report for an unknown id is not_found', async () => {
    const { store } = ledger();
    expect(await store.move('01m8nonexistent000000000000', draftOf('reported'), WRITER)).toMatchObject({ ok: false, error: { kind: 'not_found' } });
  });

  it('the state is the last transition: contradicted → reported → verified on the same dispatch keeps the whole trail', async () => {
    const { store } = ledger();
    const d = await dispatchIn(store, 'contradicted');
    for (const step of ['reported', 'verified', 'terminated'] as const) expect((await store.move(d.id, draftOf(step), WRITER)).ok).toBe(true);
    const final = (await store.get(d.id))!;
    expect(final.transitions.map((t) => t.to)).toEqual(['dispatched', 'reported', 'contradicted', 'reported', 'verified', 'terminated']);
    expect([final.state, final.verdict, final.grades.map((g) => g.event)]).toEqual(['terminated', 'verified', ['contradicted', 'verified']]);
  });

  it('a new claim after a contradiction reads ungraded until graded again', async () => {
    const { store } = ledger();
    const d = await dispatchIn(store, 'contradicted');
    expect((await store.get(d.id))!.verdict).toBe('contradicted');
    await store.move(d.id, draftOf('reported'), WRITER);
    expect((await store.get(d.id))!.verdict).toBe('ungraded');
  });

  it('two writers racing from the same state: one wins, the other is judged again and refused', async () => {
    const { store, path } = ledger();
    const d = await dispatchIn(store, 'reported');
    // A second connection, as a second process would have.
    const other = openSqliteLedger(path, { create: false })!;
    open.push(other);
    const results = await Promise.all([store.move(d.id, draftOf('verified'), WRITER), new Dispatches(other).move(d.id, draftOf('contradicted'), WRITER)]);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const final = (await store.get(d.id))!;
    expect(final.damage).toBeNull();
    expect(final.transitions).toHaveLength(3);
  });
});

describe('open dispatches', () => {
  it('are every dispatch but the terminated ones, read from their newest event; a damaged newest event counts as open', async () => {
    const { store, path } = ledger();
    const byState = Object.fromEntries(await Promise.all(DISPATCH_STATES.map(async (s) => [s, (await dispatchIn(store, s)).id] as const)));
    const closedButAltered = (await dispatchIn(store, 'terminated')).id;
    const db = new Database(path);
    db.prepare(
      `UPDATE chain SET body = replace(body, '"why":"test"', '"why":"edited"') WHERE kind = 'dispatch' AND subject = ? AND body LIKE '%"event":"terminated"%'`,
    ).run(closedButAltered);
    db.close();
    const open = await store.open();
    expect(open.map((d) => d.id).sort()).toEqual([byState.dispatched, byState.reported, byState.verified, byState.contradicted, closedButAltered].sort());
    expect(open.find((d) => d.id === closedButAltered)!.state).toBe('damaged');
    // The same as folding everything and keeping what is not terminated.
    expect(open.map((d) => d.id)).toEqual((await store.all()).filter((d) => d.state !== 'terminated').map((d) => d.id));
  });
});

describe('a damaged record reads as damaged, never as what it claims', () => {
  it('an edited contradiction (now saying verified) reads DAMAGED, not verified; only closing it is allowed', async () => {
    const { store, path } = ledger();
    const d = await dispatchIn(store, 'contradicted');
    const db = new Database(path);
    db.prepare(
      `UPDATE chain SET body = replace(body, '"event":"contradicted"', '"event":"verified"') WHERE kind = 'dispatch' AND body LIKE '%"contradicted"%' AND subject = ?`,
    ).run(d.id);
    db.close();
    const read = (await store.get(d.id))!;
    expect([read.state, read.verdict]).toEqual(['damaged', 'damaged']);
    expect(read.damage).toMatch(/no longer matches its hash/);
    expect(await store.move(d.id, draftOf('reported'), WRITER)).toMatchObject({ ok: false, error: { kind: 'damaged' } });
    const closed = await store.move(d.id, draftOf('terminated'), WRITER);
    expect(closed.ok).toBe(true);
    const after = (await store.get(d.id))!;
    expect([after.state, after.verdict]).toEqual(['terminated', 'damaged']);
  });

  it('a deleted transition (a verdict with no report before it) reads DAMAGED', async () => {
    const { store, path } = ledger();
    const d = await dispatchIn(store, 'verified');
    const db = new Database(path);
    db.prepare(`DELETE FROM chain WHERE kind = 'dispatch' AND subject = ? AND body LIKE '%"event":"reported"%'`).run(d.id);
    db.close();
    const read = (await store.get(d.id))!;
    expect([read.state, read.verdict]).toEqual(['damaged', 'damaged']);
    expect(read.damage).toMatch(/moves reported → verified, but the dispatch was dispatched/);
  });

  it('a forged "verified" appended straight after the order reads DAMAGED', async () => {
    const { store, ledger: l } = ledger();
    const d = await dispatchIn(store, 'dispatched');
    // Bypasses the store's checks, as someone writing the ledger directly would.
    await l.appendEvent({
      v: 1,
      kind: 'dispatch',
      id: '01m8forged0000000000000000',
      at: new Date().toISOString(),
      subject: d.id,
      event: 'verified',
      from: 'reported',
      writer: WRITER,
      why: 'trust me',
      grade: draftOf('verified'),
    });
    expect((await store.get(d.id))!.verdict).toBe('damaged');
  });
});
