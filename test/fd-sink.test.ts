import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CLI, collect, Rig } from './helpers/rig.js';

/*
 * vouch writes its output with write(2) on descriptors 1 and 2, without
 * building process.stdout (src/cli/fd-sink.ts). A stdout its opener made
 * non-blocking answers EAGAIN once its pipe is full; what is left must
 * still arrive, whole and in order. Driven for real: Debian's python sets
 * O_NONBLOCK on the pipe and execs vouch, and this reader does not read
 * until vouch has written far more than a pipe holds.
 */

const PYTHON = '/usr/bin/python3';
const NONBLOCKING =
  'import os, sys; os.set_blocking(1, False); sys.stderr.write("blocking=%s\\n" % os.get_blocking(1)); sys.stderr.flush(); os.execv(sys.argv[1], sys.argv[1:])';

describe('a stdout that is a full non-blocking pipe', () => {
  it('gets every byte of a large --json document, in order (the write falls back to a stream that waits)', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`src/module-${String(i).padStart(4, '0')}/a-rather-long-file-name-${i}.ts`] = `export const n = ${i};\n`;
    const rig = new Rig().write(files);
    await rig.spec('version: 1\nchecks:\n  - {id: unit, run: ["true"], sources: ["src/**"]}\n');
    expect((await rig.run(['verify'])).code).toBe(0);
    const id = (await rig.run(['log', '--json'])).json<{ id: string }[]>()[0]!.id;
    const expected = await rig.run(['show', id, '--files', '--json']);
    expect(expected.code).toBe(0);
    // Far more than a pipe's 64 KiB and Node's read buffer: the writer must meet a full pipe.
    expect(expected.stdout.length).toBeGreaterThan(400_000);

    const child = spawn(PYTHON, ['-c', NONBLOCKING, process.execPath, CLI, 'show', id, '--files', '--json'], {
      cwd: rig.root,
      env: rig.env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pause();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    child.stdout.resume();
    const result = await collect(child);
    expect(result.stderr).toContain('blocking=False');
    expect(result.stderr.replace('blocking=False\n', '')).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(expected.stdout);
  });
});
