import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { hashFile, type HashOutcome } from './hash-file.js';
import { decodeOutcome, packJobs, type WorkerInput, type WorkerMessage } from './hash-pool-protocol.js';
import { MAX_BATCH, MAX_WORKERS } from './hash-pool-policy.js';
import type { HashJob } from './hash-pool-protocol.js';

/**
 * Hashes many files on this thread and on worker threads at once. Every thread claims batches from one shared counter, so a thread
 * that meets big files takes fewer batches. A worker that fails leaves
 * holes, which this thread fills: the result never misses a file.
 */
export interface PoolOptions {
  /** Worker threads to start (default: one per core but this one). */
  readonly threads?: number;
  /** Whether this thread hashes too (default true); false leaves all of it to the workers. */
  readonly help?: boolean;
  /** Counts the files the workers hashed (the rest fell to this thread). */
  readonly tally?: { byWorkers: number };
  /** The lean per-file sequence (hash-file.ts): the caller checks the directories afterwards. */
  readonly lean?: boolean;
}

export async function hashInWorkers(jobs: readonly HashJob[], within: string, worker: URL, options: PoolOptions = {}): Promise<HashOutcome[]> {
  const results: (HashOutcome | undefined)[] = new Array<HashOutcome | undefined>(jobs.length);
  const counter = new SharedArrayBuffer(4);
  const threads = options.threads ?? Math.min(availableParallelism() - 1, MAX_WORKERS);
  // Small claims when there are few files (each may be big), 64 when many.
  const batch = Math.max(1, Math.min(MAX_BATCH, Math.floor(jobs.length / ((threads + 1) * 8))));
  const input: WorkerInput = {
    ...packJobs(jobs),
    within,
    lean: options.lean === true,
    counter,
    batch,
  };
  const finished = Array.from({ length: threads }, () => runWorker(worker, input, results, options.tally));
  const next = new Int32Array(counter);
  while (options.help !== false) {
    const start = Atomics.add(next, 0, batch);
    if (start >= jobs.length) break;
    for (let i = start; i < Math.min(start + batch, jobs.length); i++) results[i] = hashJob(jobs[i]!, within, input.lean);
  }
  await Promise.all(finished);
  return jobs.map((job, i) => results[i] ?? hashJob(job, within, input.lean));
}

function hashJob(job: HashJob, within: string, lean: boolean): HashOutcome {
  return hashFile(job.absolute, within, job.expected, lean);
}

function runWorker(url: URL, input: WorkerInput, results: (HashOutcome | undefined)[], tally: { byWorkers: number } | undefined): Promise<void> {
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
      if (tally) tally.byWorkers += message.outcomes.length;
    });
    thread.on('error', () => resolve());
    thread.on('exit', () => resolve());
  });
}
