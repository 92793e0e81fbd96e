import { describe, expect, it } from 'vitest';
import { runSideBySide } from './side-by-side.js';

interface Item {
  readonly id: string;
  readonly serial?: boolean;
}

/** Runs `items` under the schedule, each taking one tick; records what ran at once and in which order things started. */
async function trace(items: readonly Item[], jobs: number, options: { abortAfter?: string; throwAt?: string } = {}) {
  const controller = new AbortController();
  const running = new Set<string>();
  const together: string[][] = [];
  const starts: string[] = [];
  let error: unknown;
  let results: string[] = [];
  try {
    results = await runSideBySide(
      items,
      jobs,
      async (item) => {
        running.add(item.id);
        starts.push(item.id);
        together.push([...running].sort());
        if (item.id === options.abortAfter) controller.abort();
        await new Promise((resolve) => setTimeout(resolve, 5));
        running.delete(item.id);
        if (item.id === options.throwAt) throw new Error(`bug in ${item.id}`);
        return `done ${item.id}`;
      },
      controller.signal,
    );
  } catch (caught) {
    error = caught;
  }
  return { together, starts, results, error, leftRunning: [...running] };
}

const plain = (...ids: string[]): Item[] => ids.map((id) => ({ id }));

describe('runSideBySide', () => {
  it('runs up to jobs at once, starting in the order given, and answers in that order', async () => {
    const { together, starts, results } = await trace(plain('a', 'b', 'c', 'd', 'e'), 2);
    expect(starts).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(Math.max(...together.map((set) => set.length))).toBe(2);
    expect(together[1]).toEqual(['a', 'b']);
    expect(results).toEqual(['done a', 'done b', 'done c', 'done d', 'done e']);
  });

  it('jobs 1 runs one after another', async () => {
    const { together } = await trace(plain('a', 'b', 'c'), 1);
    expect(together).toEqual([['a'], ['b'], ['c']]);
  });

  it('a jobs value below 1 (or a fraction) is taken as the nearest sane one: never zero at once', async () => {
    expect((await trace(plain('a', 'b'), 0)).together).toEqual([['a'], ['b']]);
    expect(Math.max(...(await trace(plain('a', 'b', 'c', 'd'), 2.7)).together.map((set) => set.length))).toBe(2);
  });

  it('a serial item waits for the others and nothing starts beside it', async () => {
    const items: Item[] = [{ id: 'a' }, { id: 'b' }, { id: 's', serial: true }, { id: 'c' }, { id: 'd' }];
    const { together, starts } = await trace(items, 4);
    expect(starts).toEqual(['a', 'b', 's', 'c', 'd']);
    expect(together).toEqual([['a'], ['a', 'b'], ['s'], ['c'], ['c', 'd']]);
  });

  it('once the signal aborts nothing more starts; the ones never started are left out of the answer', async () => {
    const { starts, results } = await trace(plain('a', 'b', 'c', 'd'), 2, { abortAfter: 'b' });
    expect(starts).toEqual(['a', 'b']);
    expect(results).toEqual(['done a', 'done b']);
  });

  it('an exception (a bug) stops further starts and is thrown only once the running ones ended', async () => {
    const { starts, error, leftRunning } = await trace(plain('a', 'b', 'c', 'd'), 2, { throwAt: 'a' });
    expect((error as Error).message).toBe('bug in a');
    expect(starts).not.toContain('d');
    expect(leftRunning).toEqual([]);
  });
});
