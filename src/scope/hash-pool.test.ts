import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { hashFile } from './hash-file.js';
import { hashInWorkers } from './hash-pool.js';
import { currentLoad, POOL_MIN_FILES, workersFor } from './hash-pool-policy.js';
import type { HashJob } from './snapshot.js';

// The worker runs as built JavaScript (test/global-setup.ts builds dist/ first).
const WORKER = pathToFileURL(resolve(import.meta.dirname, '../../dist/esm/hash-worker.js'));

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace(count: number): { root: string; jobs: HashJob[] } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-pool-')));
  dirs.push(root);
  const jobs: HashJob[] = [];
  for (let i = 0; i < count; i++) {
    const path = `d${i % 40}/f${i}.txt`;
    mkdirSync(join(root, `d${i % 40}`), { recursive: true });
    writeFileSync(join(root, path), `content ${i}\n`.repeat(i % 7));
    jobs.push({ path, absolute: join(root, path) });
  }
  execFileSync('mkfifo', [join(root, 'fifo')]);
  jobs.push({ path: 'fifo', absolute: join(root, 'fifo') });
  jobs.push({ path: 'gone.txt', absolute: join(root, 'gone.txt') });
  return { root, jobs };
}

const plain = (outcome: ReturnType<typeof hashFile>) => (outcome.ok ? { ok: true, sha256: outcome.sha256, size: outcome.size } : outcome);

describe('hashInWorkers', () => {
  it('gives every file the outcome hashFile gives it, failures included', async () => {
    expect(existsSync(WORKER)).toBe(true);
    const { root, jobs } = workspace(2000);
    const pooled = await hashInWorkers(jobs, root, WORKER);
    expect(pooled.map(plain)).toEqual(jobs.map((job) => plain(hashFile(job.absolute, root))));
    expect(pooled.at(-2)).toMatchObject({ ok: false, why: 'not_regular_file' });
    expect(pooled.at(-1)).toMatchObject({ ok: false, why: 'changed_during_hash' });
  });

  it('hashes through the built worker script (the main thread left out, to prove it)', async () => {
    const { root, jobs } = workspace(300);
    const tally = { byWorkers: 0 };
    const result = await hashInWorkers(jobs, root, WORKER, { help: false, tally, threads: 1 });
    expect(tally.byWorkers).toBe(jobs.length);
    expect(result.map(plain)).toEqual(jobs.map((job) => plain(hashFile(job.absolute, root))));
  });

  it('carries the stat identity back from every thread, for the cache', async () => {
    const { root, jobs } = workspace(2000);
    const identity = (outcome: ReturnType<typeof hashFile>) =>
      outcome.ok ? [outcome.stat.dev, outcome.stat.ino, outcome.stat.mode, outcome.stat.size, outcome.stat.mtimeNs, outcome.stat.ctimeNs] : null;
    const pooled = await hashInWorkers(jobs, root, WORKER);
    expect(pooled.map(identity)).toEqual(jobs.map((job) => identity(hashFile(job.absolute, root))));
  });

  it('reads the lean way on every thread when asked (the paths and identities go to the workers packed, not cloned one by one)', async () => {
    const { root, jobs } = workspace(400);
    const swapped = jobs.map((job, i) => (i === 5 ? { ...job, expected: { dev: 1n, ino: 1n } } : job));
    const tally = { byWorkers: 0 };
    const lean = await hashInWorkers(swapped, root, WORKER, { lean: true, help: false, tally, threads: 1 });
    expect(tally.byWorkers).toBe(swapped.length);
    expect(lean.map(plain)).toEqual(swapped.map((job) => plain(hashFile(job.absolute, root, job.expected))));
    expect(lean[5]).toMatchObject({ ok: false, why: 'changed_during_hash' });
  });

  it('refuses a file swapped between lstat and open in a worker too', async () => {
    const { root, jobs } = workspace(10);
    const swapped = jobs.map((job, i) => (i === 3 ? { ...job, expected: { dev: 1n, ino: 1n } } : job));
    const result = await hashInWorkers(swapped, root, WORKER);
    expect(result[3]).toMatchObject({ ok: false, why: 'changed_during_hash' });
  });

  it('still hashes everything when a worker cannot start', async () => {
    const { root, jobs } = workspace(300);
    const missing = pathToFileURL(join(root, 'no-such-worker.js'));
    const result = await hashInWorkers(jobs, root, missing);
    expect(result.map(plain)).toEqual(jobs.map((job) => plain(hashFile(job.absolute, root))));
  });

  it('fills the batch a worker claimed and then died on', async () => {
    const { root, jobs } = workspace(300);
    const dying = join(root, 'dying-worker.mjs');
    writeFileSync(
      dying,
      "import { workerData } from 'node:worker_threads';\nAtomics.add(new Int32Array(workerData.counter), 0, workerData.batch * 3);\nthrow new Error('worker died holding claimed work');\n",
    );
    const result = await hashInWorkers(jobs, root, pathToFileURL(dying));
    expect(result.every((outcome) => outcome !== undefined)).toBe(true);
    expect(result.map(plain)).toEqual(jobs.map((job) => plain(hashFile(job.absolute, root))));
  });
});

describe('workersFor', () => {
  const IDLE = 1; // load average of a quiet machine running only vouch
  it('starts workers for many files or a few big ones, never for a handful of small ones', () => {
    const { jobs } = workspace(20);
    expect(workersFor(jobs, WORKER, IDLE, 2)).toBe(0);
    expect(workersFor(jobs, undefined, IDLE, 2)).toBe(0);
    const many = Array.from({ length: POOL_MIN_FILES }, (_, i) => jobs[i % jobs.length]!);
    expect(workersFor(many, WORKER, IDLE, 2)).toBe(1);
    expect(workersFor(many, undefined, IDLE, 2)).toBe(0);
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-pool-big-')));
    dirs.push(root);
    const big = [0, 1].map((i) => {
      const absolute = join(root, `big${i}`);
      writeFileSync(absolute, Buffer.alloc(40 * 1024 * 1024));
      return { path: `big${i}`, absolute };
    });
    expect(workersFor(big, WORKER, IDLE, 2)).toBe(1);
    expect(workersFor(big.slice(0, 1), WORKER, IDLE, 2)).toBe(0);
  });

  it('uses the idle cores only: none on a machine busier than its core count, none on one core', () => {
    const { jobs } = workspace(10);
    const many = Array.from({ length: POOL_MIN_FILES }, (_, i) => jobs[i % jobs.length]!);
    expect(workersFor(many, WORKER, 2.5, 2)).toBe(0);
    expect(workersFor(many, WORKER, 0, 1)).toBe(0);
    expect(workersFor(many, WORKER, 2, 8)).toBe(6);
    expect(workersFor(many, WORKER, 0, 64)).toBe(7);
  });

  it('reads how busy the machine is now', () => {
    const load = currentLoad();
    expect(Number.isFinite(load)).toBe(true);
    expect(load).toBeGreaterThanOrEqual(0);
  });
});
