import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PG_MIGRATIONS } from '../src/ledger/postgres/schema.js';
import { describePg, sql, tempDatabase, type TempDatabase } from './helpers/pg.js';
import { collect, Rig } from './helpers/rig.js';
import { findingCodes, signedWorkspace } from './helpers/signed.js';
import { card, opened } from './helpers/cards.js';

/** The schema version `db migrate` brings a fresh schema to. */
const LATEST = PG_MIGRATIONS.length;

const SPEC = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n  - {id: f, run: ["false"], sources: ["src/**"]}\n';

describePg('the PostgreSQL ledger through the CLI (VOUCH_LEDGER, ledger:, vouch db)', () => {
  let db: TempDatabase;
  let schemas = 0;
  beforeAll(async () => {
    db = await tempDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** A workspace whose ledger is a fresh, migrated schema of the test database. */
  async function pgWorkspace(spec = SPEC): Promise<{ rig: Rig; url: string; schema: string }> {
    const schema = `cli_${++schemas}`;
    const url = `${db.url}?schema=${schema}`;
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    const migrated = await rig.run(['db', 'migrate', '--ledger', url]);
    expect(migrated.code, migrated.stderr).toBe(0);
    await rig.spec(spec);
    return { rig, url, schema };
  }

  it('refuses a schema that was never migrated, with exit 2 and the command that fixes it', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    const env = { VOUCH_LEDGER: `${db.url}?schema=never_migrated` };
    for (const command of [
      ['status', '--json'],
      ['verify', '--json'],
    ]) {
      const result = await rig.run(command, { env });
      expect(result.code).toBe(2);
      expect(result.json().error.code).toBe('ledger_schema_behind');
      expect(result.stderr).toContain('vouch db migrate');
    }
    expect(existsSync(rig.path('.vouch/ledger.db'))).toBe(false);
    const status = await rig.run(['db', 'status', '--json'], { env });
    expect(status.code).toBe(1);
    expect(status.json()).toMatchObject({ ok: false, schema: 'never_migrated', version: 0, latest: LATEST });
  });

  it('db migrate is versioned and idempotent: from 0 to the latest once, then nothing to do', async () => {
    const rig = new Rig();
    const url = `${db.url}?schema=migrate_twice`;
    const first = await rig.run(['db', 'migrate', '--ledger', url, '--json']);
    expect(first.json()).toMatchObject({ ok: true, schema: 'migrate_twice', from: 0, to: LATEST });
    const second = await rig.run(['db', 'migrate', '--ledger', url, '--json']);
    expect(second.json()).toMatchObject({ ok: true, from: LATEST, to: LATEST });
    const recorded = await sql<{ value: string }>(db.url, "SELECT value FROM migrate_twice.meta WHERE key = 'schema_version'");
    expect(recorded).toEqual([{ value: String(LATEST) }]);
    expect((await rig.run(['db', 'status', '--ledger', url])).code).toBe(0);
  });

  it('refuses a schema newer than this vouch (ledger_too_new), and db migrate does not touch it', async () => {
    const { rig, url, schema } = await pgWorkspace();
    await sql(db.url, `UPDATE ${schema}.meta SET value = '99' WHERE key = 'schema_version'`);
    const status = await rig.run(['status', '--json'], { env: { VOUCH_LEDGER: url } });
    expect(status.code).toBe(2);
    expect(status.json().error.code).toBe('ledger_too_new');
    expect((await rig.run(['db', 'migrate', '--ledger', url])).code).toBe(2);
  });

  it('verify, status, log, show, gc and audit work on PostgreSQL like on SQLite, and nothing is written under .vouch', async () => {
    const { rig, url } = await pgWorkspace();
    const env = { VOUCH_LEDGER: url };
    const verified = await rig.run(['verify', '--json'], { env });
    expect(verified.code).toBe(1);
    expect(verified.json().checks.map((c: { status: string }) => c.status)).toEqual(['PASS', 'FAIL']);
    const status = await rig.run(['status', '--json'], { env });
    expect(status.json().checks.map((c: { id: string; status: string }) => `${c.id}:${c.status}`)).toEqual(['t:PASS', 'f:FAIL']);
    rig.write({ 'src/a.ts': 'edited' });
    const stale = (await rig.run(['status', 't', '--json'], { env })).json().checks[0];
    expect(stale).toMatchObject({ status: 'STALE', reason: 'fingerprint_changed', changed: { modified: ['src/a.ts'] } });
    await rig.run(['verify', 't'], { env });
    const log = (await rig.run(['log', '--json'], { env })).json();
    expect(log).toHaveLength(3);
    const shown = await rig.run(['show', log[0].id.slice(0, 10), '--json'], { env });
    expect(shown.json()).toMatchObject({ seq: 3, intact: true, receipt: { check_id: 't', verdict: 'PASS' } });
    const gc = await rig.run(['gc', '--keep-per-check', '1', '--json'], { env });
    expect(gc.json()).toMatchObject({ ok: true, removed: 1 });
    const report = await rig.run(['audit', '--json'], { env });
    expect(report.code).toBe(0);
    expect(report.json()).toMatchObject({ ok: true, entries: 4, receipts: 2, gc_records: 1, pruned: 1 });
    expect(report.json().ledger).toContain('postgres://');
    expect(existsSync(rig.path('.vouch/ledger.db'))).toBe(false);
  });

  it("on PostgreSQL too: the automatic gc after a person's verify keeps an open card completable and the audit intact; reruns carry duplicate_of", async () => {
    const { rig, url } = await pgWorkspace(
      'version: 1\ndedupe_window_seconds: 600\nretention: {per_check: 1, auto: 2}\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n',
    );
    const env = { VOUCH_LEDGER: url };
    for (let i = 0; i < 2; i++) expect((await rig.run(['verify'], { env })).code).toBe(0);
    const id = await opened(rig, ['--proof', 't'], env);
    expect((await card(rig, ['verify', id], env)).json().verdict).toBe('PASS');
    const pruned = await rig.run(['verify', '--json'], { env });
    expect(pruned.json().auto_gc).toMatchObject({ ran: true, removed: 2, retained: 1 });
    const audit = await rig.run(['audit', '--json'], { env });
    expect(audit.code, audit.stdout).toBe(0);
    expect(audit.json()).toMatchObject({ gc_records: 1, pruned: 2 });
    const log: { id: string; duplicate_of?: string; dedupe_count?: number }[] = (await rig.run(['log', '--json'], { env })).json();
    // The card's run (under the card's frozen policy, which has no window) starts the series; the verify after it repeats it.
    expect(log[1]!.duplicate_of).toBeUndefined();
    expect(log[0]).toMatchObject({ duplicate_of: log[1]!.id, dedupe_count: 1 });
    expect((await card(rig, ['complete', id], env)).code).toBe(0);
  });

  it('one verify appending the receipts of 4 checks run side by side (-j 4) on PostgreSQL: 4 receipts, one chain, audit clean', async () => {
    const four = `version: 1\nchecks:\n${['a', 'b', 'c', 'd'].map((id) => `  - {id: ${id}, run: ["sleep", "0.3"], sources: ["src/**"]}\n`).join('')}`;
    const { rig, url } = await pgWorkspace(four);
    const env = { VOUCH_LEDGER: url };
    const verified = await rig.run(['verify', '-j', '4', '--json'], { env });
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.json().checks.map((c: { id: string }) => c.id)).toEqual(['a', 'b', 'c', 'd']);
    const report = await rig.run(['audit', '--json'], { env });
    expect(report.code, report.stdout).toBe(0);
    expect(report.json()).toMatchObject({ ok: true, entries: 4, receipts: 4 });
  });

  it('twelve `vouch verify` processes at once on one PostgreSQL chain: twelve receipts, seq 1..12, audit clean', async () => {
    const { rig, url, schema } = await pgWorkspace();
    const env = { VOUCH_LEDGER: url };
    const runs = await Promise.all(Array.from({ length: 12 }, () => rig.run(['verify', 't', '--json'], { env })));
    for (const run of runs) expect(run.json().checks[0].status, run.stderr).toBe('PASS');
    expect(new Set(runs.map((r) => r.json().checks[0].receipt)).size).toBe(12);
    const seqs = await sql<{ seq: number }>(db.url, `SELECT seq::int AS seq FROM ${schema}.chain ORDER BY seq`);
    expect(seqs.map((r) => r.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    const result = await rig.run(['audit', '--json'], { env });
    expect(result.json().findings).toEqual([]);
    expect(result.json()).toMatchObject({ entries: 12, receipts: 12 });
    expect(result.code).toBe(0);
  }, 120_000);

  it('a `vouch verify` killed with SIGKILL mid-run leaves no partial receipt on PostgreSQL, and the next run works', async () => {
    const { rig, url, schema } = await pgWorkspace(
      'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n  - {id: slow, run: ["./slow.sh"], sources: ["src/**"]}\n',
    );
    rig.script('slow.sh', 'echo $$ > started.pid\nexec sleep 30');
    // A person allows again once the script exists: allow pins the programs a spec runs.
    expect((await rig.run(['allow'])).code).toBe(0);
    const env = { VOUCH_LEDGER: url };
    expect((await rig.run(['verify', 't'], { env })).code).toBe(0);
    const child = rig.spawn(['verify', 'slow'], { env });
    const end = Date.now() + 10_000;
    while (!existsSync(rig.path('started.pid')) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    expect(existsSync(rig.path('started.pid'))).toBe(true);
    child.kill('SIGKILL');
    await collect(child);
    process.kill(-Number(readFileSync(rig.path('started.pid'), 'utf8')), 'SIGKILL');
    const rows = await sql<{ seq: number; kind: string }>(db.url, `SELECT seq::int AS seq, kind FROM ${schema}.chain ORDER BY seq`);
    expect(rows).toEqual([{ seq: 1, kind: 'receipt' }]);
    const next = await rig.run(['verify', 't', '--json'], { env });
    expect(next.json().checks[0].status, next.stderr).toBe('PASS');
    const audit = await rig.run(['audit', '--json'], { env });
    expect(audit.json()).toMatchObject({ ok: true, entries: 2, receipts: 2 });
  }, 60_000);

  it('audit finds tampering done with the database credentials: an edited verdict, a deleted receipt', async () => {
    const { rig, url, schema } = await pgWorkspace();
    const env = { VOUCH_LEDGER: url };
    for (let i = 0; i < 3; i++) await rig.run(['verify', 'f'], { env });
    await sql(db.url, `UPDATE ${schema}.chain SET body = replace(body, '"verdict":"FAIL"', '"verdict":"PASS"') WHERE seq = 3`);
    await sql(db.url, `DELETE FROM ${schema}.chain WHERE seq = 1`);
    const status = (await rig.run(['status', 'f', '--json'], { env })).json();
    expect(status.checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'ledger_corrupt' });
    const result = await rig.run(['audit', '--json'], { env });
    expect(result.code).toBe(1);
    expect(findingCodes(result.json())).toEqual(['2:gap', '3:body_altered']);
  });

  it('signed receipts on PostgreSQL audit clean under --key; `audit --ledger URL` needs no workspace', async () => {
    const rig = new Rig();
    const url = `${db.url}?schema=signed_chain`;
    expect((await rig.run(['db', 'migrate', '--ledger', url])).code).toBe(0);
    await signedWorkspace(rig, 3);
    // signedWorkspace ran its verifies on SQLite; run three more on PostgreSQL.
    for (let i = 0; i < 3; i++) expect((await rig.run(['verify', 't'], { env: { VOUCH_LEDGER: url } })).code).toBe(0);
    const bare = new Rig();
    bare.write({ 'home/keys/.keep': '' });
    const pub = (await rig.run(['keys', 'export-public', '--format', 'hex'])).stdout.trim();
    const result = await bare.run(['audit', '--ledger', url, '--key', pub, '--json']);
    expect(result.json()).toMatchObject({ ok: true, entries: 3, receipts: 3, unsigned: 0 });
    expect(result.code).toBe(0);
  });

  it('`ledger:` in vouch.yaml selects the ledger; VOUCH_LEDGER overrides it', async () => {
    const { rig, url, schema } = await pgWorkspace();
    const other = `${db.url}?schema=cli_override`;
    expect((await rig.run(['db', 'migrate', '--ledger', other])).code).toBe(0);
    await rig.spec(`${SPEC}ledger: "${url}"\n`);
    expect((await rig.run(['verify', 't'])).code).toBe(0);
    expect((await rig.run(['verify', 't'], { env: { VOUCH_LEDGER: other } })).code).toBe(0);
    expect(await sql(db.url, `SELECT 1 FROM ${schema}.chain`)).toHaveLength(1);
    expect(await sql(db.url, 'SELECT 1 FROM cli_override.chain')).toHaveLength(1);
    expect(existsSync(rig.path('.vouch/ledger.db'))).toBe(false);
  });

  it('a ledger URL with a password in vouch.yaml is refused, without printing the password', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'vouch.yaml': `${SPEC}ledger: "postgres://vouch:hunter2secret@127.0.0.1:5432/vouch"\n` });
    const result = await rig.run(['checks']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('carries a password');
    expect(result.stderr).toContain('VOUCH_LEDGER');
    expect(result.stderr).not.toContain('hunter2secret');
  });

  it('an unreachable server is a ledger problem (exit 2) naming the masked URL, never a status', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    const result = await rig.run(['status', '--json'], { env: { VOUCH_LEDGER: 'postgres://u:topsecret@127.0.0.1:1/nothing' } });
    expect(result.code).toBe(2);
    expect(result.json().error.code).toBe('ledger_unreadable');
    expect(result.stderr).toContain('cannot reach the PostgreSQL ledger');
    expect(result.stderr).toContain('postgres://u:***@127.0.0.1:1/nothing');
    expect(result.stdout + result.stderr).not.toContain('topsecret');
    expect(result.stdout).not.toContain('PASS');
  });

  it('a VOUCH_LEDGER that is not a postgres:// URL is a usage error', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(SPEC);
    const result = await rig.run(['status', '--json'], { env: { VOUCH_LEDGER: 'mysql://x@y/z' } });
    expect(result.code).toBe(2);
    expect(result.json().error).toMatchObject({ code: 'usage', where: 'VOUCH_LEDGER' });
  });
});
