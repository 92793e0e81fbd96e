import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { hashFile, type HashOutcome } from './hash-file.js';
import { decodeOutcome, type WorkerInput, type WorkerMessage } from './hash-pool-protocol.js';
import type { HashJob } from './snapshot.js';

/**
 * Below this many files a worker's start-up (tens of milliseconds) costs
 * more than it saves; measured in bench/ (docs/benchmarks.md).
 */
export const POOL_MIN_FILES = 1500;
/** Files claimed at a time from the shared counter. */
const BATCH = 64;
const MAX_WORKERS = 7;

export function wantsWorkers(jobs: readonly HashJob[], worker: URL | undefined): boolean {
  return worker !== undefined && jobs.length >= POOL_MIN_FILES && availableParallelism() > 1;
}

/**
 * Hashes many files on this thread and on (cores - 1) worker threads at
 * once. Every thread claims batches from one shared counter, so a thread
 * that meets big files takes fewer batches. A worker that fails leaves
 * holes, which this thread fills: the result never misses a file.
 */
export async function hashInWorkers(jobs: readonly HashJob[], within: string, worker: URL): Promise<HashOutcome[]> {
  const results: (HashOutcome | undefined)[] = new Array<HashOutcome | undefined>(jobs.length);
  const counter = new SharedArrayBuffer(4);
  const input: WorkerInput = {
    paths: jobs.map((job) => job.absolute),
    expected: jobs.map((job) => (job.expected ? [BigInt(job.expected.dev), BigInt(job.expected.ino)] : null)),
    within,
    counter,
    batch: BATCH,
  };
  const threads = Math.min(availableParallelism() - 1, MAX_WORKERS);
  const finished = Array.from({ length: threads }, () => runWorker(worker, input, results));
  const next = new Int32Array(counter);
  for (;;) {
    const start = Atomics.add(next, 0, BATCH);
    if (start >= jobs.length) break;
    for (let i = start; i < Math.min(start + BATCH, jobs.length); i++) results[i] = hashJob(jobs[i]!, within);
  }
  await Promise.all(finished);
  return jobs.map((job, i) => results[i] ?? hashJob(job, within));
}

function hashJob(job: HashJob, within: string): HashOutcome {
  return hashFile(job.absolute, within, job.expected);
}

function runWorker(url: URL, input: WorkerInput, results: (HashOutcome | undefined)[]): Promise<void> {
  return new Promise((resolve) => {
    let thread: Worker;
    try {
      thread = new Worker(url, { workerData: input });
    } catch {
      resolve();
      return;
    }
    thread.on('message', (message: WorkerMessage) => {
      if ('done' in message) {
        // Its work is delivered; let it exit on its own without holding the process.
        thread.unref();
        resolve();
        return;
      }
      message.outcomes.forEach((encoded, i) => (results[message.start + i] = decodeOutcome(encoded)));
    });
    thread.on('error', () => resolve());
    thread.on('exit', () => resolve());
  });
}
