import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalize } from '../../core/jcs.js';
import { sha256, type Sha256 } from '../../core/digest.js';
import type { TrailBody } from '../session-entries.js';
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
    return db.prepare('SELECT seq, hash, body, dict FROM chain ORDER BY seq').all() as {
      seq: number;
      hash: string;
      body: string | Buffer;
      dict: number | null;
    }[];
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
    await expect(
      ledger.appendReceipts([
        { draft: draft(0), manifest: MANIFEST },
        { draft: draft(1), manifest: wrong },
      ]),
    ).rejects.toThrow(/manifest_digest/);
    expect((await ledger.stats()).receipts).toBe(0);
    await ledger.close();
  });

  it("takes a new dictionary when a check's output changes shape, so its receipts stay compact", async () => {
    const path = ledgerPath();
    const ledger = open(path);
    const shaped = (i: number, excerpt: string): ReceiptDraft => ({
      ...draft(i),
      stdout: { sha256: sha256(excerpt), bytes: excerpt.length, excerpt, truncated: false },
    });
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

/** A ledger file at an older schema version, as the vouch of that version created it. */
function ledgerAtSchema(path: string, version: number): Database.Database {
  mkdirSync(join(path, '..'), { recursive: true });
  const db = new Database(path);
  for (const migration of MIGRATIONS.slice(0, version)) db.exec(migration);
  db.prepare("INSERT INTO meta (key, value) VALUES ('format', 'vouch-ledger'), ('schema_version', ?)").run(String(version));
  return db;
}

function trail(n: number, prev: Sha256 | null): { text: string; body: TrailBody & { prev_hash: Sha256 | null } } {
  const body = {
    v: 1,
    kind: 'trail',
    id: `01m8p2qttc4gvpt5qe${String(n).padStart(8, '0')}`,
    at: new Date(1_800_000_000_000 + n).toISOString(),
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
    prev_hash: prev,
  } as const satisfies TrailBody & { prev_hash: Sha256 | null };
  return { text: canonicalize(body), body };
}

async function liveEntries(ledger: SqliteLedger) {
  const live = [];
  for await (const entry of ledger.entries()) if (entry.state === 'live') live.push(entry);
  return live;
}

describe('what is stored compressed', () => {
  it('receipts are stored compressed; session entries, subject events and gc records as text; every read gives the canonical text', async () => {
    const path = ledgerPath();
    const ledger = open(path);
    for (let i = 0; i < 3; i++) await ledger.appendReceipt(draft(i), MANIFEST);
    const { body: trailBody } = trail(0, null);
    const { prev_hash: _prev, ...trailDraft } = trailBody;
    await ledger.appendSessionEntry(trailDraft);
    const note = {
      v: 1,
      kind: 'card',
      id: '01m8p2qttc4gvpt5qf00000001',
      at: new Date(1_800_000_000_000).toISOString(),
      subject: 'c1',
      event: 'noted',
    } as const;
    await ledger.appendEvent(note);
    await ledger.gc({ now: new Date(1_900_000_000_000), keepPerCheck: 1 });
    await ledger.close();

    const stored = rawChain(path);
    expect(stored.map((row) => row.dict !== null)).toEqual([true, false, false, false]);
    expect(stored.slice(1).every((row) => typeof row.body === 'string')).toBe(true);

    // A new connection: every dictionary is loaded while the entries are read.
    const reopened = open(path);
    const live = await liveEntries(reopened);
    expect(live.map((entry) => entry.kind)).toEqual(['receipt', 'trail', 'card', 'gc']);
    for (const entry of live) expect(sha256(entry.body)).toBe(entry.hash);
    expect((await reopened.sessionEntries('s1')).map((e) => e.intact)).toEqual([true]);
    expect((await reopened.events('card', 'c1')).map((e) => e.intact)).toEqual([true]);
    await reopened.close();
  });
});

describe('ledger schemas before compact bodies', () => {
  it('reads receipts stored as plain text by schema 1, and chains new compact ones to them', async () => {
    const path = ledgerPath();
    // A schema-1 ledger holding one receipt, as the first vouch wrote it.
    const db = ledgerAtSchema(path, 1);
    const old = { ...draft(0), prev_hash: null };
    const text = canonicalize(old);
    db.prepare('INSERT INTO chain (id, kind, check_id, manifest, created_at, hash, body) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      old.id,
      'receipt',
      old.check_id,
      old.manifest_digest,
      0,
      sha256(text),
      text,
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

  it('upgrades a schema-3 ledger (session and subject columns) to the latest: its receipts, session entries and events read intact, new receipts chain on', async () => {
    const path = ledgerPath();
    const db = ledgerAtSchema(path, 3);
    const receipt = { ...draft(0), prev_hash: null };
    const receiptText = canonicalize(receipt);
    const entry = trail(1, sha256(receiptText));
    const event = {
      v: 1,
      kind: 'card',
      id: '01m8p2qttc4gvpt5qf00000002',
      at: new Date(1_800_000_000_000).toISOString(),
      subject: 'c1',
      event: 'noted',
      prev_hash: sha256(entry.text),
    };
    const eventText = canonicalize(event);
    const insert = db.prepare('INSERT INTO chain (id, kind, check_id, manifest, created_at, hash, body, session, subject) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    insert.run(receipt.id, 'receipt', receipt.check_id, receipt.manifest_digest, 0, sha256(receiptText), receiptText, null, null);
    insert.run(entry.body.id, 'trail', null, null, 0, sha256(entry.text), entry.text, 's1', null);
    insert.run(event.id, 'card', null, null, 0, sha256(eventText), eventText, null, 'c1');
    db.close();

    const ledger = open(path);
    expect((await ledger.latestReceipts(['unit'])).get('unit')).toMatchObject({ intact: true, body: receipt });
    expect((await ledger.sessionEntries('s1')).map((e) => [e.body.id, e.intact])).toEqual([[entry.body.id, true]]);
    expect((await ledger.events('card', 'c1')).map((e) => [e.body.id, e.intact])).toEqual([[event.id, true]]);
    const next = await ledger.appendReceipt(draft(1), MANIFEST);
    expect(next.body.prev_hash).toBe(sha256(eventText));
    const live = await liveEntries(ledger);
    expect(live.map((e) => e.hash)).toEqual([sha256(receiptText), sha256(entry.text), sha256(eventText), next.hash]);
    for (const e of live) expect(sha256(e.body)).toBe(e.hash);
    await ledger.close();

    const after = new Database(path, { readonly: true });
    expect(after.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(String(MIGRATIONS.length));
    after.close();
    expect(MIGRATIONS.length).toBe(5);
    expect(rawChain(path).map((row) => row.dict !== null)).toEqual([false, false, false, true]);
  });
});

describe('SqliteLedger.appendReceipt with a manifest to build', () => {
  it('builds the manifest only when the ledger does not hold its digest yet, and stores it then', async () => {
    const ledger = open(ledgerPath());
    let built = 0;
    const build = () => {
      built++;
      return MANIFEST;
    };
    await ledger.appendReceipt(draft(1), build);
    expect(built).toBe(1);
    expect(await ledger.getManifest(manifestDigest(MANIFEST))).toEqual(MANIFEST);
    // The same files again (an unchanged tree): the manifest is not built a second time.
    await ledger.appendReceipt(draft(2), build);
    expect(built).toBe(1);
    expect((await ledger.listReceipts({ checkId: 'unit', limit: 10 })).length).toBe(2);
  });

  it('refuses a built manifest that is not the one its receipt names (nothing is appended)', async () => {
    const ledger = open(ledgerPath());
    const other: Manifest = { files: [['src/b.ts', 'b'.repeat(64) as Sha256, 1, 'source']], refused: [] };
    await expect(ledger.appendReceipt(draft(1), () => other)).rejects.toThrow(/manifest_digest does not match/);
    expect(await ledger.listReceipts({ checkId: 'unit', limit: 10 })).toEqual([]);
  });
});
