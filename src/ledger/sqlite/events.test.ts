import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { sha256 } from '../../core/digest.js';
import { newId } from '../../core/ids.js';
import type { SubjectEventBody } from '../events.js';
import { openSqliteLedger } from './sqlite-ledger.js';

interface NoteEvent extends SubjectEventBody {
  readonly kind: 'card';
  readonly note: string;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function ledgerPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-events-'));
  dirs.push(dir);
  return join(dir, 'ledger.db');
}

const event = (subject: string, note: string, at = new Date()): NoteEvent => ({
  v: 1,
  kind: 'card',
  id: newId(at.getTime()),
  at: at.toISOString(),
  subject,
  event: 'noted',
  note,
});

describe('subject events in the SQLite ledger', () => {
  it('appends events to the chain and reads one subject back in order', async () => {
    const path = ledgerPath();
    const ledger = openSqliteLedger(path, { create: true })!;
    const first = await ledger.appendEvent(event('c1', 'one'));
    await ledger.appendEvent(event('c2', 'other'));
    await ledger.appendEvent(event('c1', 'two'), { sign: (text) => `sig:${sha256(text)}` });
    const events = await ledger.events<NoteEvent>('card', 'c1');
    expect(events.map((e) => [e.body.note, e.intact, e.signature?.startsWith('sig:') ?? false])).toEqual([
      ['one', true, false],
      ['two', true, true],
    ]);
    expect(await ledger.subjects('card', 10)).toEqual(['c1', 'c2']);
    expect(await ledger.subjects('dispatch', 10)).toEqual([]);
    // Chained like any entry: the second event's prev_hash is the first's hash.
    const seconds = [];
    for await (const entry of ledger.entries()) if (entry.state === 'live') seconds.push(JSON.parse(entry.body).prev_hash);
    expect(seconds[1]).toBe(first.hash);
    await ledger.close();
  });

  it('reads an edited event as damaged, never as what it now claims', async () => {
    const path = ledgerPath();
    const ledger = openSqliteLedger(path, { create: true })!;
    await ledger.appendEvent(event('c1', 'honest'));
    await ledger.close();
    const db = new Database(path);
    db.prepare("UPDATE chain SET body = replace(body, 'honest', 'forged')").run();
    db.close();
    const reopened = openSqliteLedger(path, { create: false })!;
    const [stored] = await reopened.events<NoteEvent>('card', 'c1');
    expect(stored!.intact).toBe(false);
    await reopened.close();
  });
});

describe('compare-and-append (after)', () => {
  it('appends only while the subject is where the writer read it, and writes nothing on a conflict', async () => {
    const ledger = openSqliteLedger(ledgerPath(), { create: true })!;
    const first = await ledger.appendEvent(event('c1', 'one'), { after: null });
    // A second "first" event is refused: the subject already has one.
    await expect(ledger.appendEvent(event('c1', 'racing first'), { after: null })).rejects.toMatchObject({ name: 'EventConflict', latest: first.body.id });
    const second = await ledger.appendEvent(event('c1', 'two'), { after: first.body.id });
    // Two writers that both read "one" as the newest: the later one loses.
    await expect(ledger.appendEvent(event('c1', 'stale writer'), { after: first.body.id })).rejects.toMatchObject({ latest: second.body.id });
    // Another subject's events do not count.
    await ledger.appendEvent(event('c2', 'other'), { after: null });
    await ledger.appendEvent(event('c1', 'three'), { after: second.body.id });
    expect((await ledger.events<NoteEvent>('card', 'c1')).map((e) => e.body.note)).toEqual(['one', 'two', 'three']);
    await ledger.close();
  });
});

describe('latestEvents', () => {
  it("gives each subject's newest event, most recently active first, and marks a damaged one", async () => {
    const path = ledgerPath();
    const ledger = openSqliteLedger(path, { create: true })!;
    await ledger.appendEvent(event('c1', 'one'));
    await ledger.appendEvent(event('c2', 'first of two'));
    await ledger.appendEvent(event('c1', 'two'));
    await ledger.appendEvent(event('c2', 'second of two'));
    await ledger.appendEvent({ ...event('c3', 'a dispatch'), kind: 'dispatch' } as unknown as NoteEvent);
    expect((await ledger.latestEvents<NoteEvent>('card', 10)).map((e) => [e.body.subject, e.body.note, e.intact])).toEqual([
      ['c2', 'second of two', true],
      ['c1', 'two', true],
    ]);
    expect((await ledger.latestEvents<NoteEvent>('card', 1)).map((e) => e.body.subject)).toEqual(['c2']);
    await ledger.close();
    const db = new Database(path);
    db.prepare("UPDATE chain SET body = replace(body, 'second of two', 'forged') WHERE subject = 'c2'").run();
    db.close();
    const reopened = openSqliteLedger(path, { create: false })!;
    expect((await reopened.latestEvents<NoteEvent>('card', 10)).map((e) => [e.body.subject, e.intact])).toEqual([
      ['c2', false],
      ['c1', true],
    ]);
    await reopened.close();
  });
});
