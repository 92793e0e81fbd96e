import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalize } from '../../core/jcs.js';
import { sha256, type Sha256 } from '../../core/digest.js';
import type { ReceiptDraft } from '../../receipt/receipt.js';
import { manifestDigest, type Manifest } from '../../scope/manifest.js';
import { MIGRATIONS } from './schema.js';
import { openSqliteLedger, type SqliteLedger } from './sqlite-ledger.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function ledgerPath(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-ledger-')));
  dirs.push(dir);
  return join(dir, '.vouch', 'ledger.db');
}

const MANIFEST: Manifest = { files: [['src/a.ts', 'a'.repeat(64) as Sha256, 1, 'source']], refused: [] };

function draft(i: number, checkId = 'unit'): ReceiptDraft {
  return {
    v: 1,
    kind: 'receipt',
    id: `01m8p2qttc4gvpt5qd${String(i).padStart(8, '0')}`,
    check_id: checkId,
    definition_digest: 'd'.repeat(64) as Sha256,
    spec_sha256: 'e'.repeat(64) as Sha256,
    argv: ['npm', 'test'],
    shell: false,
    cwd: '.',
    timeout_s: 120,
    env_names: ['HOME', 'PATH'],
    executable: '/usr/bin/npm',
    ran: true,
    started_at: new Date(1_800_000_000_000 + i * 1000).toISOString(),
    finished_at: new Date(1_800_000_000_000 + i * 1000 + 7).toISOString(),
    duration_ms: 7 + (i % 5),
    exit_code: 0,
    signal: null,
    timed_out: false,
    stdout: { sha256: sha256(`out${i % 3}`), bytes: 40, excerpt: `ok ${i % 3} tests passed\n`, truncated: false },
    stderr: null,
    manifest_digest: manifestDigest(MANIFEST),
    file_count: 1,
    fingerprint: 'f'.repeat(64) as Sha256,
    verdict: 'PASS',
    reason: 'ok',
    detail: null,
    proves: 'The tests pass.',
    engine: { name: 'vouch', version: '0.1.0' },
    platform: { os: 'linux', arch: 'x64', node: 'v20' },
    git: { head: 'c'.repeat(40), dirty: false },
    actor: 'cli',
  };
}

function open(path: string): SqliteLedger {
  return openSqliteLedger(path, { create: true })!;
}

function rawChain(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare('SELECT seq, hash, body, dict FROM chain ORDER BY seq').all() as { seq: number; hash: string; body: string | Buffer; dict: number | null }[];
  } finally {
    db.close();
  }
}

describe('SqliteLedger.appendReceipts', () => {
  it('chains a batch in order, each receipt to the one before it, across batches', async () => {
    const path = ledgerPath();
    const ledger = open(path);
    const first = await ledger.appendReceipts([0, 1, 2].map((i) => ({ draft: draft(i), manifest: MANIFEST })));
    const second = await ledger.appendReceipts([3, 4].map((i) => ({ draft: draft(i), manifest: MANIFEST })));
    const all = [...first, ...second];
    expect(all.map((r) => r.body.prev_hash)).toEqual([null, ...all.slice(0, -1).map((r) => r.hash)]);
    for (const receipt of all) expect(receipt.hash).toBe(sha256(canonicalize(receipt.body)));
    const read = await ledger.listReceipts({ limit: 10 });
    expect(read.map((r) => r.body).reverse()).toEqual(all.map((r) => r.body));
    expect(read.every((r) => r.intact)).toBe(true);
    await ledger.close();
  });

  it('writes all of a batch or none of it', async () => {
    const path = ledgerPath();
    const ledger = open(path);
    await ledger.appendReceipts([{ draft: draft(0), manifest: MANIFEST }]);
    // The third receipt reuses an id: the whole batch is rolled back.
    await expect(ledger.appendReceipts([1, 2, 0].map((i) => ({ draft: draft(i), manifest: MANIFEST })))).rejects.toThrow();
    expect(rawChain(path).length).toBe(1);
    await ledger.close();
  });

  it('refuses a batch whose manifest does not match a receipt, before writing anything', async () => {
    const path = ledgerPath();
    const ledger = open(path);
    const wrong: Manifest = { files: [], refused: [] };
    await expect(ledger.appendReceipts([{ draft: draft(0), manifest: MANIFEST }, { draft: draft(1), manifest: wrong }])).rejects.toThrow(/manifest_digest/);
    expect((await ledger.stats()).receipts).toBe(0);
    await ledger.close();
  });

  it('takes a new dictionary when a check\'s output changes shape, so its receipts stay compact', async () => {
    const path = ledgerPath();
    const ledger = open(path);
    const shaped = (i: number, excerpt: string): ReceiptDraft => ({ ...draft(i), stdout: { sha256: sha256(excerpt), bytes: excerpt.length, excerpt, truncated: false } });
    const before = randomBytes(1500).toString('base64');
    const after = randomBytes(1500).toString('base64');
    for (let i = 0; i < 40; i++) await ledger.appendReceipt(shaped(i, before), MANIFEST);
    for (let i = 40; i < 60; i++) await ledger.appendReceipt(shaped(i, after), MANIFEST);
    const rows = rawChain(path);
    const last = rows[rows.length - 1]!;
    expect(last.dict).not.toBe(rows[0]!.dict);
    expect(Buffer.byteLength(last.body)).toBeLessThan(300);
    expect((await ledger.listReceipts({ limit: 100 })).every((r) => r.intact)).toBe(true);
    await ledger.close();
  });

  it('takes a new dictionary at most once per 32 entries when output never repeats (storage cannot double)', async () => {
    const path = ledgerPath();
    const ledger = open(path);
    const noisy = (i: number): ReceiptDraft => {
      const excerpt = randomBytes(1500).toString('base64');
      return { ...draft(i), stdout: { sha256: sha256(excerpt), bytes: excerpt.length, excerpt, truncated: false } };
    };
    for (let i = 0; i < 100; i++) await ledger.appendReceipt(noisy(i), MANIFEST);
    const db = new Database(path, { readonly: true });
    const dicts = db.prepare('SELECT count(*) FROM dicts').pluck().get() as number;
    db.close();
    expect(dicts).toBeGreaterThan(1);
    expect(dicts).toBeLessThanOrEqual(4);
    expect((await ledger.listReceipts({ limit: 100 })).every((r) => r.intact)).toBe(true);
    await ledger.close();
  });
});

describe('ledger schema 1 to 2', () => {
  it('reads receipts stored as plain text by schema 1, and chains new compact ones to them', async () => {
    const path = ledgerPath();
    // A schema-1 ledger holding one receipt, as the first vouch wrote it.
    mkdirSync(join(path, '..'), { recursive: true });
    const db = new Database(path);
    db.exec(MIGRATIONS[0]!);
    db.prepare("INSERT INTO meta (key, value) VALUES ('format', 'vouch-ledger'), ('schema_version', '1')").run();
    const old = { ...draft(0), prev_hash: null };
    const text = canonicalize(old);
    db.prepare('INSERT INTO chain (id, kind, check_id, manifest, created_at, hash, body) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      old.id, 'receipt', old.check_id, old.manifest_digest, 0, sha256(text), text,
    );
    db.close();

    const ledger = open(path);
    const [read] = await ledger.listReceipts({ limit: 1 });
    expect(read).toMatchObject({ intact: true, body: old });
    const next = await ledger.appendReceipt(draft(1), MANIFEST);
    expect(next.body.prev_hash).toBe(sha256(text));
    await ledger.close();
    const rows = rawChain(path);
    expect(rows[0]!.dict).toBeNull();
    expect(typeof rows[0]!.body).toBe('string');
  });
});
