import { availableParallelism } from 'node:os';

/**
 * How many checks run at once when the caller does not say: one per core,
 * at most 4. Checks are mostly child processes that wait on their own work
 * (a test runner, a compiler), so one per core keeps the machine busy
 * without the runs slowing each other past what running them one after
 * another would cost; past 4, test runners that start their own workers
 * mostly fight over the same cores.
 */
export function defaultJobs(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/** What the schedule needs to know of a check. */
export interface Scheduled {
  /** true: runs alone, never beside another (spec `serial: true`). */
  readonly serial?: boolean | undefined;
}

/**
 * Runs `run` over `items`, at most `jobs` at once, starting them in the
 * order given. A serial item waits until nothing else runs, and nothing
 * starts beside it. Once `signal` aborts nothing more starts (the ones
 * running see the same signal through `run`); the result holds what each
 * started item returned, in the items' order, and leaves out the items
 * never started. An exception from `run` (a bug, never an expected
 * failure) stops further starts and is thrown once the running ones end,
 * so no run is left behind unattended.
 */
export async function runSideBySide<T extends Scheduled, R>(
  items: readonly T[],
  jobs: number,
  run: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<R[]> {
  const limit = Math.max(1, Math.floor(jobs));
  const results = new Map<number, R>();
  const running = new Set<Promise<void>>();
  let failure: { readonly error: unknown } | undefined;
  for (const [index, item] of items.entries()) {
    const room = item.serial === true ? 1 : limit;
    while (running.size >= room) await Promise.race(running);
    if (failure !== undefined || signal?.aborted === true) break;
    const task: Promise<void> = run(item, index)
      .then(
        (result) => void results.set(index, result),
        (error: unknown) => void (failure ??= { error }),
      )
      .finally(() => running.delete(task));
    running.add(task);
    // Nothing starts beside a serial item: it is waited for here.
    if (item.serial === true) await task;
  }
  await Promise.all(running);
  if (failure !== undefined) throw failure.error;
  return [...results.entries()].sort(([a], [b]) => a - b).map(([, result]) => result);
}
