import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { packTarGz } from '../src/archive/pack.js';
import { describePg, sql, tempDatabase, type TempDatabase } from './helpers/pg.js';
import { Rig } from './helpers/rig.js';
import { jobsPath, Service } from './helpers/service.js';

/** Bounded: 4 clients x 6 jobs, 3 workers, one killed with SIGKILL mid-job; all on loopback. */
const CLIENTS = 4;
const JOBS_PER_CLIENT = 6;
const SPEC = `version: 1
checks:
  - {id: quick, run: ["true"], sources: ["src/**"]}
  - {id: slow, run: ["sleep", "0.6"], sources: ["src/**"]}
`;

describePg('load: clients, workers, a worker killed mid-job', () => {
  let db: TempDatabase;
  beforeAll(async () => {
    db = await tempDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("every job ends done with exactly one receipt per check, the killed worker's job is retried, and the chain audits clean", async () => {
    const schema = 'load';
    const service = await Service.prepare(`${db.url}?schema=${schema}`);
    await service.allow(SPEC);
    const tokens = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => service.token(`client${i}`)));
    await service.start(['--workers', '0', '--max-jobs-per-client', '3']);
    const workers = Array.from({ length: 3 }, () => service.worker(['--lease-seconds', '2', '--poll-ms', '100']));
    const specSha = createHash('sha256').update(SPEC).digest('hex');

    const submitOne = async (token: string, n: number): Promise<string> => {
      const archive = await packTarGz([
        { path: 'vouch.yaml', bytes: Buffer.from(SPEC), executable: false },
        { path: `src/file.txt`, bytes: Buffer.from(`job ${n}\n`), executable: false },
      ]);
      for (let attempt = 0; attempt < 200; attempt++) {
        const answer = await service.fetch(jobsPath(specSha, ['quick', 'slow']), { method: 'POST', token, body: archive });
        if (answer.status === 202) return answer.json.job.id as string;
        expect(answer.status).toBe(429);
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      throw new Error('the server kept refusing');
    };

    // Kill one worker as soon as it is running a job.
    const victim = workers[0]!;
    const killed = (async () => {
      const end = Date.now() + 30_000;
      while (Date.now() < end) {
        const running = await sql<{ id: string }>(db.url, `SELECT id FROM ${schema}.jobs WHERE state = 'running' AND lease_owner LIKE $1`, [
          `%:${victim.pid}:%`,
        ]);
        if (running.length > 0) {
          victim.kill('SIGKILL');
          return running[0]!.id;
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('the victim worker never ran a job');
    })();

    const submitted = (
      await Promise.all(
        tokens.map(async (token, c) => {
          const ids: string[] = [];
          for (let j = 0; j < JOBS_PER_CLIENT; j++) ids.push(await submitOne(token, c * 100 + j));
          return ids.map((id) => ({ id, token }));
        }),
      )
    ).flat();
    const victimJob = await killed;
    const jobs = await Promise.all(submitted.map(({ id, token }) => service.settle(id, token, 60_000)));

    expect(jobs).toHaveLength(CLIENTS * JOBS_PER_CLIENT);
    for (const job of jobs) {
      expect(job.state, JSON.stringify(job.error)).toBe('done');
      expect(job.receipts.map((r: { check_id: string }) => r.check_id).sort()).toEqual(['quick', 'slow']);
    }
    const retried = jobs.find((job) => job.id === victimJob);
    expect(retried.attempts).toBeGreaterThanOrEqual(2);
    // Exactly one receipt per job and check in the whole chain, none orphaned.
    const counts = await sql<{ receipts: number; linked: number }>(
      db.url,
      `SELECT (SELECT count(*)::int FROM ${schema}.chain WHERE kind = 'receipt') AS receipts, (SELECT count(*)::int FROM ${schema}.job_receipts) AS linked`,
    );
    expect(counts[0]).toEqual({ receipts: CLIENTS * JOBS_PER_CLIENT * 2, linked: CLIENTS * JOBS_PER_CLIENT * 2 });
    const audit = await new Rig().run(['audit', '--ledger', service.ledger, '--key', service.publicKeyHex, '--json']);
    expect(audit.json()).toMatchObject({ ok: true, receipts: CLIENTS * JOBS_PER_CLIENT * 2, unsigned: 0, findings: [] });
    for (const worker of workers.slice(1)) worker.kill('SIGTERM');
  }, 120_000);
});
