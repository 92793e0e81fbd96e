import { hostname } from 'node:os';
import type { Pool } from 'pg';
import { archiveStream } from './archive-parts.js';
import { claimJob, completeJob, failJob, heartbeat, releaseJob, type ClaimedJob, type LeaseLoss } from './jobs.js';
import { sweepCgroups } from './job-cgroup.js';
import { activeJobDirs } from './job-tree.js';
import { isAlive, sweepLeftovers } from './leftovers.js';
import { runJob, type JobRunner } from './run-job.js';

export interface WorkerOptions extends JobRunner {
  readonly pool: Pool;
  /** Seconds a claim lasts without a heartbeat; a dead worker's job is retried after this. */
  readonly leaseSeconds: number;
  readonly maxAttempts: number;
  /** Milliseconds between looks at an empty queue. */
  readonly pollMs: number;
  /** Stop after this many jobs (benchmarks and tests); unbounded when absent. */
  readonly maxJobs?: number;
  /** Milliseconds between sweeps of what dead workers left (default 10 minutes); the first is at start. */
  readonly sweepMs?: number;
  /** Told about each job, for the operator's log. */
  readonly onEvent?: (event: WorkerEvent) => void;
}

export type WorkerEvent =
  | { readonly kind: 'claimed'; readonly job: string; readonly attempt: number; readonly worker: string }
  | { readonly kind: 'completed'; readonly job: string; readonly receipts: readonly string[] }
  | { readonly kind: 'refused'; readonly job: string; readonly code: string; readonly message: string }
  /** Receipts recorded, but a requested check has none: the job ended failed. */
  | { readonly kind: 'incomplete'; readonly job: string; readonly receipts: readonly string[]; readonly message: string }
  /** The worker no longer held the job, and why; it recorded nothing. */
  | { readonly kind: 'lease_lost'; readonly job: string; readonly loss: LeaseLoss }
  | { readonly kind: 'released'; readonly job: string }
  /** A job directory or cgroup left by a worker no longer running (or by this one, when its job ended), removed by a sweep. */
  | { readonly kind: 'swept'; readonly path: string }
  /** A job directory that could not be removed, and why; the next sweep tries again. */
  | { readonly kind: 'left'; readonly path: string; readonly detail: string }
  /** The database or the job's run failed unexpectedly; the worker waits and goes on (an unfinished job is retried when its lease runs out). */
  | { readonly kind: 'error'; readonly job: string | null; readonly message: string };

/** A worker's name in leases: host, pid and a counter, unique among live workers. */
let counter = 0;
export function workerName(): string {
  return `${hostname()}:${process.pid}:${++counter}`;
}

/**
 * Claims and runs jobs one at a time until `stop` aborts. While a job runs
 * its lease is renewed every third of its length; if a renewal finds the
 * lease lost, the run is stopped and nothing is written (another worker
 * has the job). A job past its time limit is stopped and recorded with
 * UNKNOWN/interrupted receipts: it ends, it is not lost; a check it never
 * reached has no receipt, so the job ends failed (no_receipt).
 */
export async function runWorker(options: WorkerOptions, stop: AbortSignal): Promise<void> {
  const name = workerName();
  const sweepMs = options.sweepMs ?? 10 * 60_000;
  let swept = Number.NEGATIVE_INFINITY;
  let done = 0;
  while (!stop.aborted && (options.maxJobs === undefined || done < options.maxJobs)) {
    let job: ClaimedJob | undefined;
    try {
      if (Date.now() - swept >= sweepMs) {
        swept = Date.now();
        await sweep(options);
      }
      job = await claimJob(options.pool, name, options.leaseSeconds, options.maxAttempts);
      if (!job) {
        await sleep(options.pollMs, stop);
        continue;
      }
      options.onEvent?.({ kind: 'claimed', job: job.id, attempt: job.attempt, worker: name });
      await work(job, name, options, stop);
      done++;
    } catch (error) {
      // A database restart or a failed run must not end the worker; the job's lease runs out and it is retried.
      options.onEvent?.({ kind: 'error', job: job?.id ?? null, message: error instanceof Error ? error.message : String(error) });
      await sleep(Math.max(options.pollMs, 1000), stop);
    }
  }
}

/**
 * What workers killed mid-job on this machine left (their job directories,
 * tmpfs mounts and cgroups), and this worker's own job directories that
 * could not be removed when their job ended; each removal is told.
 */
async function sweep(options: WorkerOptions): Promise<void> {
  const trees = await sweepLeftovers(undefined, isAlive, activeJobDirs);
  for (const path of trees.removed) options.onEvent?.({ kind: 'swept', path });
  for (const { path, detail } of trees.left) options.onEvent?.({ kind: 'left', path, detail });
  const place = options.sandbox.cgroupPlace;
  if (place) for (const path of await sweepCgroups(place, isAlive)) options.onEvent?.({ kind: 'swept', path });
}

async function work(job: ClaimedJob, name: string, options: WorkerOptions, stop: AbortSignal): Promise<void> {
  const run = new AbortController();
  let lost: LeaseLoss | undefined;
  const onStop = () => run.abort('worker stopping');
  stop.addEventListener('abort', onStop, { once: true });
  const limit = setTimeout(() => run.abort('time limit'), job.timeLimitSeconds * 1000);
  const beat = setInterval(
    () => {
      heartbeat(options.pool, job.id, name, options.leaseSeconds)
        .then((lease) => {
          if (lease.kind !== 'held') {
            lost ??= lease;
            run.abort('lease lost');
          }
        })
        .catch(() => undefined);
    },
    (options.leaseSeconds * 1000) / 3,
  );
  try {
    const onLeftover = (path: string, detail: string) => options.onEvent?.({ kind: 'left', path, detail });
    const outcome = await runJob(
      job,
      archiveStream(options.pool, job.id, job.archiveParts),
      { ...options, onLeftover },
      run.signal,
      () => stop.aborted || lost !== undefined,
    );
    if (lost) {
      options.onEvent?.({ kind: 'lease_lost', job: job.id, loss: lost });
      return;
    }
    switch (outcome.kind) {
      case 'stopped':
        await releaseJob(options.pool, job.id, name);
        options.onEvent?.({ kind: 'released', job: job.id });
        return;
      case 'refused': {
        const result = await failJob(options.pool, job.id, name, outcome.error);
        if (result.kind === 'failed') options.onEvent?.({ kind: 'refused', job: job.id, code: outcome.error.code, message: outcome.error.message });
        else options.onEvent?.({ kind: 'lease_lost', job: job.id, loss: result.loss });
        return;
      }
      case 'ran': {
        const result = await completeJob(options.pool, job.id, name, outcome.receipts, options.sign, options.sandbox.record, outcome.error);
        if (result.kind === 'lease_lost') options.onEvent?.({ kind: 'lease_lost', job: job.id, loss: result.loss });
        else if (outcome.error) options.onEvent?.({ kind: 'incomplete', job: job.id, receipts: result.receipts, message: outcome.error.message });
        else options.onEvent?.({ kind: 'completed', job: job.id, receipts: result.receipts });
        return;
      }
    }
  } finally {
    clearTimeout(limit);
    clearInterval(beat);
    stop.removeEventListener('abort', onStop);
  }
}

function sleep(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    }
    stop.addEventListener('abort', done, { once: true });
  });
}
