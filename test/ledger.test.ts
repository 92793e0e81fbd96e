import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../src/core/digest.js';
import { BodyStore } from '../src/ledger/sqlite/body-store.js';
import { collect, Rig } from './helpers/rig.js';

const SPEC = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n';

/** Every chain entry with its canonical text (bodies may be stored compressed: body-store.ts). */
function chain(rig: Rig): { seq: number; hash: string; body: string }[] {
  const db = new Database(rig.path('.vouch/ledger.db'), { readonly: true });
  try {
    const bodies = new BodyStore(db);
    const rows = db.prepare('SELECT seq, hash, body, dict FROM chain ORDER BY seq').all() as {
      seq: number;
      hash: string;
      body: string | Buffer;
      dict: number | null;
    }[];
    return rows.map((row) => ({ seq: row.seq, hash: row.hash, body: bodies.decode(row)! }));
  } finally {
    db.close();
  }
}

function assertChainIntact(rows: { hash: string; body: string }[]): void {
  let prev: string | null = null;
  for (const row of rows) {
    expect(sha256(row.body)).toBe(row.hash);
    expect(JSON.parse(row.body).prev_hash).toBe(prev);
    prev = row.hash;
  }
}

describe('the ledger', () => {
  it('chains every receipt to the one before it', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    for (let i = 0; i < 3; i++) await rig.run(['verify']);
    const rows = chain(rig);
    expect(rows.length).toBe(3);
    assertChainIntact(rows);
  });

  it('stores a manifest once per distinct digest', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'src/b.ts': 'b' });
    await rig.spec(SPEC);
    for (let i = 0; i < 4; i++) await rig.run(['verify']);
    rig.write({ 'src/a.ts': 'changed' });
    await rig.run(['verify']);
    const db = new Database(rig.path('.vouch/ledger.db'), { readonly: true });
    expect(db.prepare('SELECT count(*) FROM manifests').pluck().get()).toBe(2);
    db.close();
  });

  it('survives eight concurrent `vouch verify` processes: eight receipts, chain intact', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    const runs = await Promise.all(Array.from({ length: 8 }, () => rig.run(['verify', '--json'])));
    for (const run of runs) expect(run.json().checks[0].status).toBe('PASS');
    const rows = chain(rig);
    expect(rows.length).toBe(8);
    expect(new Set(runs.map((r) => r.json().checks[0].receipt)).size).toBe(8);
    assertChainIntact(rows);
  });

  it('a `vouch verify` killed with SIGKILL mid-run leaves no partial receipt, and the next run works', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    rig.script('slow.sh', 'echo $$ > started.pid\nexec sleep 30');
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n  - {id: slow, run: ["./slow.sh"], sources: ["src/**"]}\n');
    await rig.run(['verify', 't']);
    const child = rig.spawn(['verify', 'slow']);
    const end = Date.now() + 10_000;
    while (!existsSync(rig.path('started.pid')) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    await collect(child);
    process.kill(-Number(readFileSync(rig.path('started.pid'), 'utf8')), 'SIGKILL');
    const db = new Database(rig.path('.vouch/ledger.db'));
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
    expect(chain(rig).length).toBe(1);
    const next = await rig.run(['verify', 't', '--json']);
    expect(next.json().checks[0].status).toBe('PASS');
    assertChainIntact(chain(rig));
  });

  it('an unreadable ledger (a directory where the file should be) is a clear error with exit 2', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    mkdirSync(rig.path('.vouch/ledger.db'), { recursive: true });
    const result = await rig.run(['status', '--json']);
    expect(result.code).toBe(2);
    expect(result.json()).toMatchObject({ ok: false, error: { code: 'ledger_unreadable' } });
    expect(result.stdout).not.toContain('PASS');
  });

  it('a corrupt ledger file is a clear error with exit 2, and no status is invented', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    await rig.run(['verify']);
    const path = rig.path('.vouch/ledger.db');
    for (const suffix of ['-wal', '-shm']) if (existsSync(path + suffix)) writeFileSync(path + suffix, '');
    writeFileSync(path, Buffer.concat([Buffer.from('this is not a database'), Buffer.alloc(8192, 7)]));
    const result = await rig.run(['status', '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the ledger is corrupt');
    expect(result.json()).toMatchObject({ ok: false, error: { code: 'ledger_corrupt' } });
    expect(result.stdout).not.toContain('PASS');
  });

  it('an SQLite file that is not a vouch ledger is refused, not used', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(rig.path('.vouch'));
    const db = new Database(rig.path('.vouch/ledger.db'));
    db.exec('CREATE TABLE other (x)');
    db.close();
    const result = await rig.run(['status']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not a vouch ledger');
  });

  it('a receipt whose stored bytes were edited reads as UNKNOWN/ledger_corrupt, never as its forged verdict', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC.replace('"true"', '"false"'));
    await rig.run(['verify']);
    const [stored] = chain(rig);
    expect(stored!.body).toContain('"verdict":"FAIL"');
    const db = new Database(rig.path('.vouch/ledger.db'));
    db.prepare('UPDATE chain SET body = ?, dict = NULL').run(stored!.body.replace('"verdict":"FAIL"', '"verdict":"PASS"'));
    db.close();
    const result = await rig.run(['status', '--json']);
    expect(result.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'ledger_corrupt' });
    expect(result.code).toBe(1);
  });

  it('a receipt whose compression dictionary was edited reads as UNKNOWN/ledger_corrupt, never as other content', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC.replace('"true"', '"false"'));
    await rig.run(['verify']);
    await rig.run(['verify']);
    const db = new Database(rig.path('.vouch/ledger.db'));
    expect(db.prepare('SELECT count(*) FROM chain WHERE dict IS NOT NULL').pluck().get()).toBe(2);
    const dict = db.prepare('SELECT body FROM dicts').pluck().get() as Buffer;
    db.prepare('UPDATE dicts SET body = ?').run(Buffer.from(dict.toString('utf8').replace('"verdict":"FAIL"', '"verdict":"PASS"')));
    db.close();
    const result = await rig.run(['status', '--json']);
    expect(result.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'ledger_corrupt' });
  });

  it("stores an unchanged tree's receipts compactly, and reads back the exact canonical text", async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    for (let i = 0; i < 5; i++) await rig.run(['verify']);
    const db = new Database(rig.path('.vouch/ledger.db'), { readonly: true });
    const sizes = db.prepare('SELECT length(body) AS stored FROM chain ORDER BY seq').pluck().all() as number[];
    db.close();
    const rows = chain(rig);
    assertChainIntact(rows);
    for (const [i, row] of rows.entries()) {
      expect(JSON.parse(row.body).kind).toBe('receipt');
      // Each later receipt is stored in a small fraction of its canonical size.
      if (i > 0) expect(sizes[i]!).toBeLessThan(Buffer.byteLength(row.body) / 4);
    }
    const shown = (await rig.run(['show', JSON.parse(rows[4]!.body).id, '--json'])).json();
    expect(shown).toMatchObject({ intact: true, hash: rows[4]!.hash, receipt: JSON.parse(rows[4]!.body) });
  });

  it('status never creates a ledger', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    await rig.run(['status']);
    expect(existsSync(rig.path('.vouch/ledger.db'))).toBe(false);
  });

  it('gc removes old receipts, never the latest of a check, and records the removal in the chain', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n  - {id: u, run: ["true"], sources: ["src/**"]}\n');
    for (let i = 0; i < 3; i++) await rig.run(['verify', 't']);
    await rig.run(['verify', 'u']);
    const before = (await rig.run(['status', '--json'])).json();
    const gc = await rig.run(['gc', '--keep-per-check', '1', '--json']);
    expect(gc.json()).toMatchObject({ ok: true, removed: 2 });
    expect((await rig.run(['status', '--json'])).json()).toEqual(before);
    const rows = chain(rig);
    expect(rows.map((r) => JSON.parse(r.body).kind)).toEqual(['receipt', 'receipt', 'gc']);
    const gcBody = JSON.parse(rows[2]!.body);
    expect(gcBody.removed).toBe(2);
    expect(gcBody.prev_hash).toBe(rows[1]!.hash);
    const nothing = await rig.run(['gc', '--keep-days', '0', '--json']);
    expect(nothing.json().removed).toBe(0);
  });
});
