import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, collect, Rig, type RunResult } from './helpers/rig.js';

/*
 * A reader that goes away (`vouch ... | head -1`) closes vouch's stdout. vouch
 * then ends quietly, as git does: no stack trace, no "internal error", and
 * every receipt of the run still recorded. Driven with real pipes: a shell
 * pipeline into head, and a child whose stdout pipe is closed by its reader
 * before vouch writes a byte.
 */

// Each check takes a moment, so the lines after the first are written after head has exited.
const SPEC = `version: 1
checks:
  - {id: a, run: ["sh", "-c", "sleep 0.3"], sources: ["src/**"]}
  - {id: b, run: ["sh", "-c", "sleep 0.3"], sources: ["src/**"]}
  - {id: c, run: ["sh", "-c", "sleep 0.3"], sources: ["src/**"]}
`;

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'a\n' });
  await rig.spec(SPEC);
  return rig;
}

/** Nothing on stderr that says vouch broke: no EPIPE, no stack, no internal error. */
function expectQuiet(stderr: string): void {
  expect(stderr).not.toMatch(/EPIPE|internal error|Error:|\n\s+at /);
}

/** `vouch ARGS | head -N` in bash; vouch's own exit status is printed on stderr by bash as vouch-exit=N. */
async function throughHead(rig: Rig, args: readonly string[], lines: number): Promise<RunResult & { vouchExit: number }> {
  const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('bash', ['-c', `${quoted} | head -${lines}; echo "vouch-exit=\${PIPESTATUS[0]}" >&2`], {
    cwd: rig.root,
    env: rig.env(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const result = await collect(child);
  const exit = /vouch-exit=(\d+)/.exec(result.stderr);
  expect(exit, result.stderr).not.toBeNull();
  return { ...result, stderr: result.stderr.replace(/vouch-exit=\d+\n/, ''), vouchExit: Number(exit![1]) };
}

/** `vouch ARGS` whose stdout reader has gone before vouch writes anything. */
async function readerGone(rig: Rig, args: readonly string[], env: Record<string, string> = {}): Promise<RunResult> {
  const child = rig.spawn(args, { env });
  child.stdout!.destroy();
  return collect(child);
}

const receipts = async (rig: Rig) =>
  (await rig.run(['log', '--json']))
    .json<{ check_id: string }[]>()
    .map((r) => r.check_id)
    .sort();

describe('a closed stdout', () => {
  it('`vouch verify a b c | head -1` prints one line, records all 3 receipts, and exits with the verdict, quietly', async () => {
    const rig = await workspace();
    const result = await throughHead(rig, ['verify', 'a', 'b', 'c'], 1);
    expect(result.stdout).toMatch(/^PASS\s+a\s/);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expectQuiet(result.stderr);
    expect(result.vouchExit).toBe(0);
    expect(await receipts(rig)).toEqual(['a', 'b', 'c']);
  });

  it('verify with its reader gone before the first line still runs and records every check', async () => {
    const rig = await workspace();
    const result = await readerGone(rig, ['verify']);
    expectQuiet(result.stderr);
    expect(result.code).toBe(0);
    expect(await receipts(rig)).toEqual(['a', 'b', 'c']);
  });

  it.each([
    ['status', ['status'], 0],
    ['status --json', ['status', '--json'], 0],
    ['log', ['log'], 0],
    ['a usage problem with --json (its JSON document goes to the closed stdout)', ['status', '--bogus', '--json'], 2],
  ])('%s with its reader gone exits quietly with its own code', async (_name, args, code) => {
    const rig = await workspace();
    expect((await rig.run(['verify'])).code).toBe(0);
    const result = await readerGone(rig, args);
    expectQuiet(result.stderr);
    expect(result.code).toBe(code);
  });

  // As people type it. Whether vouch writes after head is gone depends on timing here (the cases above close the pipe first, always).
  it('`vouch status | head -1` and `vouch log | head -1` print their first line and nothing breaks', async () => {
    const rig = await workspace();
    expect((await rig.run(['verify'])).code).toBe(0);
    const status = await throughHead(rig, ['status'], 1);
    expect(status.stdout).toMatch(/^\s+PASS\s+a\s/);
    expectQuiet(status.stderr);
    expect(status.vouchExit).toBe(0);
    const log = await throughHead(rig, ['log'], 1);
    expect(log.stdout.trim().split('\n')).toHaveLength(1);
    expectQuiet(log.stderr);
    expect(log.vouchExit).toBe(0);
  });

  it('`vouch card complete ID | head -0` closes the card and says nothing of the pipe', async () => {
    const rig = await workspace();
    const opened = await rig.run(['card', 'open', '--goal', 'a', '--artifact', 'src/a.txt', '--done-when', 'a passes', '--proof', 'a', '--json']);
    expect(opened.code, opened.stderr).toBe(0);
    const id = opened.json().id as string;
    expect((await rig.run(['card', 'verify', id])).code).toBe(0);
    const complete = await readerGone(rig, ['card', 'complete', id]);
    expectQuiet(complete.stderr);
    expect(complete.code).toBe(0);
    expect((await rig.run(['card', 'show', id, '--json'])).json().state).toBe('done');
  });

  it('stdout and stderr both gone (`2>&1 | head -0`): still every receipt, exit with the verdict', async () => {
    const rig = await workspace();
    const child = spawn('bash', ['-c', `'${process.execPath}' '${CLI}' verify 2>&1 | head -0; echo "vouch-exit=\${PIPESTATUS[0]}" >&2`], {
      cwd: rig.root,
      env: rig.env(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const result = await collect(child);
    expect(result.stderr).toBe('vouch-exit=0\n');
    expect(await receipts(rig)).toEqual(['a', 'b', 'c']);
  });
});
