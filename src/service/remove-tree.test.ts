import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mountsAtOrBelow, removeTree } from './remove-tree.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await removeTree(dir);
});

/** A chain of directories `d/d/d/...` below `dir`, deeper than PATH_MAX (4096), made by descriptor as a check can. */
function deepChain(dir: string, depth = 2500): void {
  const made = spawnSync(
    'python3',
    ['-c', `import os\nos.chdir(${JSON.stringify(dir)})\nfor _ in range(${depth}):\n    os.mkdir('d'); os.chdir('d')\nopen('bottom', 'w').write('x')`],
    { encoding: 'utf8' },
  );
  expect(made.status, made.stderr).toBe(0);
}

describe('removing a job tree a check may have made hostile', () => {
  it('attack: a tree deeper than PATH_MAX, which rmSync cannot remove (ENAMETOOLONG), is removed by descriptor', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-remove-'));
    dirs.push(dir);
    deepChain(dir);
    // The attack on the old removal: it throws (ENAMETOOLONG, or its recursion runs out of stack), and the tree stays.
    expect(() => rmSync(dir, { recursive: true, force: true })).toThrow();
    expect(existsSync(dir)).toBe(true);
    expect(await removeTree(dir)).toEqual({ ok: true });
    expect(existsSync(dir)).toBe(false);
  });

  it('attack: directories left without any permission are removed too', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-remove-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'a', 'b'), { recursive: true });
    writeFileSync(join(dir, 'a', 'b', 'f'), 'x');
    chmodSync(join(dir, 'a', 'b'), 0);
    chmodSync(join(dir, 'a'), 0);
    expect(await removeTree(dir)).toEqual({ ok: true });
    expect(existsSync(dir)).toBe(false);
  });

  // Root only: mounting a tmpfs; .ci/run runs as root, so it runs in CI.
  it.runIf(process.getuid?.() === 0)('a tmpfs mounted in the tree is detached first; nothing below it is walked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-remove-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'job'));
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'vouch-job', join(dir, 'job')]).status).toBe(0);
    deepChain(join(dir, 'job'), 3000);
    expect(mountsAtOrBelow(dir)).toEqual([join(dir, 'job')]);
    expect(await removeTree(dir)).toEqual({ ok: true });
    expect(mountsAtOrBelow(dir)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });

  it('an absent tree is removed already', async () => {
    expect(await removeTree(join(tmpdir(), 'vouch-remove-never-made'))).toEqual({ ok: true });
  });
});
