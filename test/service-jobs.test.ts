import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Pool } from 'pg';
import { postgresLocation } from '../src/ledger/location.js';
import { migrate } from '../src/ledger/postgres/migrate.js';
import { openPool, type PgLocation } from '../src/ledger/postgres/pool.js';
import { describe } from '../src/cli/commands/worker.js';
import { claimJob, completeJob, failJob, heartbeat } from '../src/service/jobs.js';
import { beginJob, finishUpload, storePart } from '../src/service/upload.js';
import { runWorker, type WorkerEvent } from '../src/service/worker.js';
import { draftOf, manifestOf } from './helpers/drafts.js';
import { describePg, tempDatabase, type TempDatabase } from './helpers/pg.js';

const sandbox = { kind: 'none', why: 'test' } as const;
const sign = () => 'signed';

describePg('the job queue: claims, leases, exactly one completion', () => {
  let db: TempDatabase;
  let pool: Pool;
  beforeAll(async () => {
    db = await tempDatabase();
    const located = postgresLocation(db.url, 'flag');
    if (!located.ok || located.value.kind !== 'postgres') throw new Error('bad URL');
    const at: PgLocation = located.value;
    pool = await openPool(at, 4);
    await migrate(pool, at);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  let nonces = 0;
  /** A job submitted as the server does: opened before its upload is read, the upload stored, then queued. */
  const job = async (client = 'c') => {
    const begun = await beginJob(
      pool,
      { client, specSha256: 'a'.repeat(64), checks: ['t'], timeLimitSeconds: 10, nonce: (++nonces).toString(16).padStart(32, '0'), clientGit: null },
      100,
    );
    if (begun.kind !== 'receiving') return { kind: begun.kind } as const;
    await storePart(pool, begun.id, 0, Buffer.from('x'));
    await finishUpload(pool, begun.id, 1, 1, 'b'.repeat(64));
    return { kind: 'queued', id: begun.id } as const;
  };
  const receipt = () => [{ draft: draftOf('t', manifestOf('m')), manifest: manifestOf('m') }];

  it('a worker whose lease ran out writes nothing; the worker that took the job over completes it once, and only once', async () => {
    const submitted = await job();
    if (submitted.kind !== 'queued') throw new Error('not queued');
    const first = await claimJob(pool, 'worker-a', 30, 3);
    expect(first?.id).toBe(submitted.id);
    // Worker A hangs past its lease.
    await pool.query(`UPDATE jobs SET lease_until = clock_timestamp() - interval '1 second' WHERE id = $1`, [submitted.id]);
    // Its own lease ran out, and nobody has taken the job yet: that is what the worker is told.
    expect(await heartbeat(pool, submitted.id, 'worker-a', 30)).toEqual({ kind: 'expired' });
    const second = await claimJob(pool, 'worker-b', 30, 3);
    expect(second).toMatchObject({ id: submitted.id, attempt: 2, archiveParts: 1 });
    // Now another worker holds it: worker A is told who.
    expect(await heartbeat(pool, submitted.id, 'worker-a', 30)).toEqual({ kind: 'taken', by: 'worker-b' });
    expect(await completeJob(pool, submitted.id, 'worker-a', receipt(), sign, sandbox)).toEqual({
      kind: 'lease_lost',
      loss: { kind: 'taken', by: 'worker-b' },
    });
    expect(await failJob(pool, submitted.id, 'worker-a', { code: 'archive_refused', message: 'x' })).toEqual({
      kind: 'lease_lost',
      loss: { kind: 'taken', by: 'worker-b' },
    });
    const done = await completeJob(pool, submitted.id, 'worker-b', receipt(), sign, sandbox);
    expect(done.kind).toBe('completed');
    expect(await completeJob(pool, submitted.id, 'worker-b', receipt(), sign, sandbox)).toEqual({ kind: 'lease_lost', loss: { kind: 'ended', state: 'done' } });
    // An ended job's upload is not kept.
    expect((await pool.query('SELECT count(*)::int AS n FROM job_archive_parts WHERE job_id = $1', [submitted.id])).rows[0].n).toBe(0);
    const linked = await pool.query('SELECT count(*)::int AS n FROM job_receipts WHERE job_id = $1', [submitted.id]);
    expect(linked.rows[0].n).toBe(1);
  });

  it('a second receipt for one job and check is impossible, whatever a worker does: the primary key refuses it', async () => {
    const submitted = await job();
    if (submitted.kind !== 'queued') throw new Error('not queued');
    await claimJob(pool, 'worker-c', 30, 3);
    await expect(completeJob(pool, submitted.id, 'worker-c', [...receipt(), ...receipt()], sign, sandbox)).rejects.toThrow(/duplicate key/);
    // The transaction rolled back whole: no receipt, the job still the worker's to finish.
    const linked = await pool.query('SELECT count(*)::int AS n FROM job_receipts WHERE job_id = $1', [submitted.id]);
    expect(linked.rows[0].n).toBe(0);
    expect((await completeJob(pool, submitted.id, 'worker-c', receipt(), sign, sandbox)).kind).toBe('completed');
  });

  it('concurrent claims never hand one job to two workers (SKIP LOCKED)', async () => {
    await pool.query(`DELETE FROM job_receipts; UPDATE jobs SET state = 'done'`);
    const ids = [];
    for (let i = 0; i < 6; i++) {
      const submitted = await job(`many${i}`);
      if (submitted.kind === 'queued') ids.push(submitted.id);
    }
    const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => claimJob(pool, `w${i}`, 30, 3)));
    const got = claims.filter((c) => c !== undefined).map((c) => c.id);
    expect(got.sort()).toEqual(ids.sort());
  });

  it("attack: one client's backlog does not hold the queue: with one worker, claims interleave clients (alice, bob, alice, carol, bob...), never alice's four first", async () => {
    await pool.query(`UPDATE jobs SET state = 'done' WHERE state IN ('queued', 'running')`);
    const ids = new Map<string, string>();
    for (const name of ['alice1', 'alice2', 'alice3', 'alice4', 'bob1', 'bob2', 'carol1']) {
      const submitted = await job(name.replace(/\d$/, ''));
      if (submitted.kind === 'queued') ids.set(submitted.id, name);
    }
    const order: string[] = [];
    for (;;) {
      const claimed = await claimJob(pool, 'only-worker', 30, 3);
      if (!claimed) break;
      order.push(ids.get(claimed.id)!);
      // Done before the next claim: one worker, one job at a time.
      await completeJob(pool, claimed.id, 'only-worker', [], sign, sandbox);
    }
    expect(order).toEqual(['alice1', 'bob1', 'carol1', 'alice2', 'bob2', 'alice3', 'alice4']);
  });

  it("attack: while alice's jobs hold workers, the next free worker goes to bob, whose job is younger than alice's waiting ones", async () => {
    await pool.query(`UPDATE jobs SET state = 'done' WHERE state IN ('queued', 'running')`);
    const alice = [];
    for (let i = 0; i < 4; i++) alice.push(await job('busy-alice'));
    const bob = await job('busy-bob');
    const first = await claimJob(pool, 'w1', 30, 3);
    const second = await claimJob(pool, 'w2', 30, 3);
    expect([first?.id, second?.id]).toEqual([alice[0]!.kind === 'queued' && alice[0]!.id, bob.kind === 'queued' && bob.id]);
  });

  it('concurrent claims by many workers stay fair: each client gets a job before any gets a second', async () => {
    await pool.query(`UPDATE jobs SET state = 'done' WHERE state IN ('queued', 'running')`);
    const clients = new Map<string, string>();
    for (const name of ['a', 'a', 'a', 'b', 'b', 'c']) {
      const submitted = await job(`fair-${name}`);
      if (submitted.kind === 'queued') clients.set(submitted.id, name);
    }
    const claims = await Promise.all(Array.from({ length: 3 }, (_, i) => claimJob(pool, `fair-w${i}`, 30, 3)));
    expect(claims.map((c) => clients.get(c!.id)).sort()).toEqual(['a', 'b', 'c']);
  });

  it('a job started max-attempts times without finishing is failed, not retried forever', async () => {
    await pool.query(`UPDATE jobs SET state = 'done'`);
    const submitted = await job('crashy');
    if (submitted.kind !== 'queued') throw new Error('not queued');
    for (let i = 0; i < 2; i++) {
      expect((await claimJob(pool, `crash${i}`, 30, 2))?.id).toBe(submitted.id);
      await pool.query(`UPDATE jobs SET lease_until = clock_timestamp() - interval '1 second' WHERE id = $1`, [submitted.id]);
    }
    expect(await claimJob(pool, 'crash-last', 30, 2)).toBeUndefined();
    const row = await pool.query('SELECT state, error FROM jobs WHERE id = $1', [submitted.id]);
    expect(row.rows[0]).toMatchObject({ state: 'failed', error: { code: 'attempts_exhausted' } });
  });

  it('a job still receiving its upload counts against its client and is never claimed; a second submission with its nonce finds it', async () => {
    await pool.query(`UPDATE jobs SET state = 'done' WHERE state IN ('queued', 'running')`);
    const request = {
      client: 'uploader',
      specSha256: 'a'.repeat(64),
      checks: ['t'],
      timeLimitSeconds: 10,
      nonce: 'f'.repeat(64),
      clientGit: { head: 'c'.repeat(40), dirty: true },
    };
    const begun = await beginJob(pool, request, 1);
    if (begun.kind !== 'receiving') throw new Error(begun.kind);
    expect(await claimJob(pool, 'w', 30, 3)).toBeUndefined();
    expect(await beginJob(pool, { ...request, nonce: 'e'.repeat(64) }, 1)).toEqual({ kind: 'busy', open: 1 });
    expect(await beginJob(pool, request, 1)).toEqual({ kind: 'existing', id: begun.id, state: 'receiving' });
    await storePart(pool, begun.id, 0, Buffer.from('a'));
    await storePart(pool, begun.id, 1, Buffer.from('b'));
    await finishUpload(pool, begun.id, 2, 2, 'd'.repeat(64));
    expect(await claimJob(pool, 'w', 30, 3)).toMatchObject({
      id: begun.id,
      archiveParts: 2,
      nonce: 'f'.repeat(64),
      clientGit: { head: 'c'.repeat(40), dirty: true },
    });
  });

  it('a job whose receipts do not cover every requested check ends failed with the reason, its receipts kept', async () => {
    const submitted = await job('partial');
    if (submitted.kind !== 'queued') throw new Error('not queued');
    await claimJob(pool, 'worker-p', 30, 3);
    const done = await completeJob(pool, submitted.id, 'worker-p', receipt(), sign, sandbox, { code: 'no_receipt', message: 'no receipt for "u"' });
    expect(done.kind).toBe('completed');
    const row = await pool.query('SELECT state, error FROM jobs WHERE id = $1', [submitted.id]);
    expect(row.rows[0]).toEqual({ state: 'failed', error: { code: 'no_receipt', message: 'no receipt for "u"' } });
    expect((await pool.query('SELECT count(*)::int AS n FROM job_receipts WHERE job_id = $1', [submitted.id])).rows[0].n).toBe(1);
  });

  it('a worker sweeps what dead workers left at start and then periodically, and says what it swept', async () => {
    const dead = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());
    const leftover = (tag: string) => {
      const path = join(tmpdir(), `vouch-job-${dead}-${tag}`);
      mkdirSync(join(path, 'job', 'tree'), { recursive: true });
      return path;
    };
    const atStart = leftover('Start1');
    const events: WorkerEvent[] = [];
    const stop = new AbortController();
    const swept = (path: string) => events.some((event) => event.kind === 'swept' && event.path === path);
    const running = runWorker(
      {
        pool,
        home: tmpdir(),
        sign,
        sandbox: { record: sandbox, gaps: [], notes: [], jobDisk: { kind: 'disk', why: 'test' } },
        maxTreeBytes: 1 << 20,
        maxUnpackMs: 1000,
        leaseSeconds: 30,
        maxAttempts: 3,
        pollMs: 20,
        sweepMs: 200,
        onEvent: (event) => events.push(event),
      },
      stop.signal,
    );
    try {
      for (let i = 0; i < 500 && !swept(atStart); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(swept(atStart)).toBe(true);
      // Left while the worker runs: the next sweep takes it.
      const later = leftover('Later1');
      for (let i = 0; i < 500 && !swept(later); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(swept(later)).toBe(true);
      expect(existsSync(later)).toBe(false);
      expect(describe(events.find((event) => event.kind === 'swept')!)).toBe(
        `worker: removed ${atStart}, left by a worker no longer running (or by this one, when its job ended)`,
      );
    } finally {
      stop.abort();
      await running;
    }
  });

  it("the worker's log says what became of a lost lease: its own ran out, another worker took the job, or the job ended", () => {
    expect(describe({ kind: 'lease_lost', job: 'j', loss: { kind: 'expired' } })).toBe(
      "job j: this worker's own lease ran out before it was renewed (no heartbeat in time); nothing recorded by this worker",
    );
    expect(describe({ kind: 'lease_lost', job: 'j', loss: { kind: 'taken', by: 'host:7:1' } })).toContain('another worker (host:7:1) took the job over');
    expect(describe({ kind: 'lease_lost', job: 'j', loss: { kind: 'ended', state: 'done' } })).toContain('the job ended meanwhile (done)');
  });
});
