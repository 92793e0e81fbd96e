import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { packTarGz } from '../src/archive/pack.js';
import { describePg, tempDatabase, type TempDatabase } from './helpers/pg.js';
import { jobsPath, Service } from './helpers/service.js';

/**
 * Issue 24, fairness: one client's backlog must not hold every worker
 * while another client waits. Against `vouch serve --workers 2`, as the
 * attack was made: alice submits four long jobs, then bob one short one.
 */
describePg('the verifier service is fair between clients (issue 24)', () => {
  let db: TempDatabase;
  beforeAll(async () => {
    db = await tempDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("attack: alice's four long jobs do not hold both workers until they are all done: bob's short job, submitted after them, runs as soon as a worker is free and finishes while alice's last two still run", async () => {
    const service = await Service.prepare(`${db.url}?schema=fair`);
    const spec = `version: 1
checks:
  - {id: long, run: ["sleep", "10"], sources: ["src/**"]}
  - {id: short, run: ["true"], sources: ["src/**"]}
verifier_key: ${service.publicKeyHex}
`;
    await service.allow(spec);
    const alice = await service.token('alice');
    const bob = await service.token('bob');
    await service.start(['--workers', '2']);
    const specSha = createHash('sha256').update(spec).digest('hex');
    const archive = await packTarGz([
      { path: 'vouch.yaml', bytes: Buffer.from(spec), executable: false },
      { path: 'src/a.txt', bytes: Buffer.from('hello\n'), executable: false },
    ]);
    const submit = async (token: string, check: string) => {
      const submitted = await service.fetch(jobsPath(specSha, [check]), { method: 'POST', token, body: archive });
      expect(submitted.status).toBe(202);
      return submitted.json.job.id as string;
    };
    const alices = [];
    for (let i = 0; i < 4; i++) alices.push(await submit(alice, 'long'));
    const bobs = await submit(bob, 'short');
    const [a1, a2, a3, a4] = await Promise.all(alices.map((id) => service.settle(id, alice, 120_000)));
    const b1 = await service.settle(bobs, bob, 120_000);
    for (const job of [a1, a2, a3, a4, b1]) expect(job.state).toBe('done');
    const at = (time: string) => Date.parse(time);
    // Submitted last, bob's job was the third to start: before alice's third and fourth (first come, first served would have made it fifth).
    expect(at(b1.started_at)).toBeLessThan(at(a3.started_at));
    expect(at(b1.started_at)).toBeLessThan(at(a4.started_at));
    // And it ended while those were still running.
    expect(at(b1.finished_at)).toBeLessThan(at(a3.finished_at));
    expect(at(b1.finished_at)).toBeLessThan(at(a4.finished_at));
  });
});
