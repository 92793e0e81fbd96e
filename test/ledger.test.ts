import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../src/core/digest.js';
import { collect, Rig } from './helpers/rig.js';

const SPEC = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n';

function chain(rig: Rig): { seq: number; hash: string; body: string }[] {
  const db = new Database(rig.path('.vouch/ledger.db'), { readonly: true });
  try {
    return db.prepare('SELECT seq, hash, body FROM chain ORDER BY seq').all() as { seq: number; hash: string; body: string }[];
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
    const db = new Database(rig.path('.vouch/ledger.db'));
    db.prepare("UPDATE chain SET body = replace(body, '\"verdict\":\"FAIL\"', '\"verdict\":\"PASS\"')").run();
    db.close();
    const result = await rig.run(['status', '--json']);
    expect(result.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'ledger_corrupt' });
    expect(result.code).toBe(1);
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
