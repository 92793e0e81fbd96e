import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * dedupe_window_seconds: a rerun that found what the run before it found
 * (same definition, pins, fingerprint, verdict) carries duplicate_of (the
 * first receipt) and dedupe_count; it is appended all the same.
 */

const spec = (window: string) => `version: 1
${window}checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt"]
    sources: ["src/**"]
`;

async function workspace(window = 'dedupe_window_seconds: 600\n'): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  await rig.spec(spec(window));
  return rig;
}

async function receipts(rig: Rig): Promise<{ id: string; verdict: string; duplicate_of?: string; dedupe_count?: number }[]> {
  const log = await rig.run(['log', '--json']);
  expect(log.code, log.stderr).toBe(0);
  const listed: { id: string; verdict: string; duplicate_of?: string; dedupe_count?: number }[] = log.json();
  return listed.reverse();
}

describe('dedupe_window_seconds', () => {
  it('reruns of the same state and verdict name the first receipt and count; every one is appended and the chain audits clean', async () => {
    const rig = await workspace();
    for (let i = 0; i < 3; i++) await rig.run(['verify']);
    const [first, second, third] = await receipts(rig);
    expect(first!.duplicate_of).toBeUndefined();
    expect(second).toMatchObject({ duplicate_of: first!.id, dedupe_count: 1 });
    expect(third).toMatchObject({ duplicate_of: first!.id, dedupe_count: 2 });
    const shown = await rig.run(['show', third!.id, '--json']);
    expect(shown.json().receipt).toMatchObject({ duplicate_of: first!.id, dedupe_count: 2 });
    expect((await rig.run(['show', third!.id])).stdout).toContain(`rerun     2 of receipt ${first!.id}`);
    expect((await rig.run(['audit'])).code).toBe(0);
  });

  it('a changed file, or a changed verdict, starts anew: a flaky FAIL between two PASSes is news', async () => {
    const rig = await workspace();
    await rig.run(['verify']);
    rig.write({ 'src/a.txt': 'bad\n' });
    await rig.run(['verify']);
    await rig.run(['verify']);
    rig.write({ 'src/a.txt': 'good\n' });
    await rig.run(['verify']);
    const [pass, fail, failAgain, passAgain] = await receipts(rig);
    expect(pass!.duplicate_of).toBeUndefined();
    expect(fail).toMatchObject({ verdict: 'FAIL' });
    expect(fail!.duplicate_of).toBeUndefined();
    expect(failAgain).toMatchObject({ verdict: 'FAIL', duplicate_of: fail!.id, dedupe_count: 1 });
    expect(passAgain).toMatchObject({ verdict: 'PASS' });
    expect(passAgain!.duplicate_of).toBeUndefined();
  });

  it('absent (the default), or 0, annotates nothing', async () => {
    for (const window of ['', 'dedupe_window_seconds: 0\n']) {
      const rig = await workspace(window);
      await rig.run(['verify']);
      await rig.run(['verify']);
      expect((await receipts(rig)).map((r) => r.duplicate_of)).toEqual([undefined, undefined]);
    }
  });

  it('a rerun past the window starts a new series', async () => {
    const rig = await workspace('dedupe_window_seconds: 1\n');
    await rig.run(['verify']);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await rig.run(['verify']);
    expect((await receipts(rig))[1]!.duplicate_of).toBeUndefined();
  });

  it('a window out of range is a spec error that says what it expects', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n', 'vouch.yaml': spec('dedupe_window_seconds: -5\n') });
    const checked = await rig.run(['checks']);
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain('dedupe_window_seconds');
  });
});
