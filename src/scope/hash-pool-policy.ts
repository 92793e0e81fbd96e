import { lstatSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { HashJob } from './snapshot.js';

// When to hash on worker threads. Apart from hash-pool.ts so that deciding
// does not load node:worker_threads: the hot path never needs it.

/**
 * Below this many files, or this many bytes, a worker's start-up (tens of
 * milliseconds) costs more than it saves; measured in bench/
 * (docs/benchmarks.md).
 */
export const POOL_MIN_FILES = 1500;
export const POOL_MIN_BYTES = 64 * 1024 * 1024;
/** Most files claimed at a time from the shared counter. */
export const MAX_BATCH = 64;
export const MAX_WORKERS = 7;

/**
 * Whether hashing these jobs is worth worker threads: many files, or a few
 * big ones. Sizes are looked up (lstat) only for a short list; the hot path
 * (a warm cache, a handful of changed files) never starts a worker.
 */
export function wantsWorkers(jobs: readonly HashJob[], worker: URL | undefined): boolean {
  if (worker === undefined || jobs.length < 2 || availableParallelism() < 2) return false;
  if (jobs.length >= POOL_MIN_FILES) return true;
  let bytes = 0;
  for (const job of jobs) {
    bytes += lstatSync(job.absolute, { throwIfNoEntry: false })?.size ?? 0;
    if (bytes >= POOL_MIN_BYTES) return true;
  }
  return false;
}
