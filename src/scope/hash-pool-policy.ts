import { lstatSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import type { HashJob } from './hash-pool-protocol.js';

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
 * How many worker threads to hash these jobs on: 0 unless there are many
 * files or a few big ones, and a core to spare. Threads only help where
 * cores are idle: on a machine already busier than its core count a worker
 * slowed a cold fingerprint of 30,000 files by half (docs/decisions/speed.md).
 * `load` counts this process too. Sizes are looked up (lstat) only for a
 * short list; the hot path (a warm cache, a handful of changed files) never
 * starts a worker.
 */
export function workersFor(jobs: readonly HashJob[], worker: URL | undefined, load = currentLoad(), cores = availableParallelism()): number {
  if (worker === undefined || jobs.length < 2) return 0;
  const workers = Math.min(cores - 1, MAX_WORKERS, Math.floor(cores - load + 0.5));
  if (workers < 1) return 0;
  if (jobs.length >= POOL_MIN_FILES) return workers;
  let bytes = 0;
  for (const job of jobs) {
    bytes += lstatSync(job.absolute, { throwIfNoEntry: false })?.size ?? 0;
    if (bytes >= POOL_MIN_BYTES) return workers;
  }
  return 0;
}

/**
 * How busy the machine is, this process included: the lower of the
 * one-minute load average and, on Linux, the threads runnable right now
 * (/proc/loadavg). Each alone misleads: the average lags behind a burst
 * that just ended (the previous command of a script), the instant count
 * catches this process's own helper threads. Busy by both, it is busy.
 */
export function currentLoad(): number {
  const average = loadavg()[0] ?? 0;
  try {
    const runnable = /^\S+ \S+ \S+ (\d+)\//.exec(readFileSync('/proc/loadavg', 'latin1'));
    if (runnable) return Math.min(average, Number(runnable[1]));
  } catch {
    // Not Linux.
  }
  return average;
}
