import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jobDirPrefix, sweepLeftovers } from './leftovers.js';
import { mountsAtOrBelow } from './remove-tree.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('leftovers of workers killed mid-job', () => {
  it("removes a dead worker's job directory, and leaves a live one's, a link, and other names alone", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-leftovers-'));
    dirs.push(dir);
    const dead = deadPid();
    const make = (name: string) => {
      const path = join(dir, name);
      mkdirSync(join(path, 'tree'), { recursive: true });
      writeFileSync(join(path, 'tree', 'a.txt'), 'a');
      return path;
    };
    const leftover = make(`vouch-job-${dead}-AbC123`);
    const live = make(`vouch-job-${process.ppid}-xyz789`);
    const foreign = make(`vouch-jobs-${dead}-AbC123`);
    const target = make('elsewhere');
    const link = join(dir, `vouch-job-${dead}-LnK000`);
    symlinkSync(target, link);
    expect(await sweepLeftovers(dir)).toEqual({ removed: [leftover], left: [] });
    expect(existsSync(leftover)).toBe(false);
    for (const kept of [live, foreign, target, link]) expect(existsSync(kept), kept).toBe(true);
    expect(existsSync(join(target, 'tree', 'a.txt'))).toBe(true);
  });

  it('a job directory is named for its worker, so that the sweep can tell', async () => {
    expect(jobDirPrefix(1234)).toBe(join(tmpdir(), 'vouch-job-1234-'));
    const made = mkdtempSync(jobDirPrefix());
    dirs.push(made);
    expect(made).toMatch(new RegExp(`vouch-job-${process.pid}-[A-Za-z0-9]{6}$`));
    // Its own directories are never swept while in use.
    expect((await sweepLeftovers(undefined, undefined, new Set([made]))).removed).not.toContain(made);
    expect(existsSync(made)).toBe(true);
  });

  it('its own job directory that could not be removed when its job ended (no longer in use) is swept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-leftovers-'));
    dirs.push(dir);
    const own = join(dir, `vouch-job-${process.pid}-Own123`);
    const inUse = join(dir, `vouch-job-${process.pid}-Use456`);
    for (const path of [own, inUse]) mkdirSync(join(path, 'job'), { recursive: true });
    expect(await sweepLeftovers(dir, () => true, new Set([inUse]))).toEqual({ removed: [own], left: [] });
    expect(existsSync(inUse)).toBe(true);
  });

  // Root only: mounting a tmpfs; .ci/run runs as root, so it runs in CI.
  it.runIf(process.getuid?.() === 0)("a dead worker's job tmpfs, still mounted, is detached and removed", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vouch-leftovers-'));
    dirs.push(dir);
    const leftover = join(dir, `vouch-job-${deadPid()}-Mnt789`);
    mkdirSync(leftover);
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'vouch-job', leftover]).status).toBe(0);
    writeFileSync(join(leftover, 'a.txt'), 'a');
    expect(mountsAtOrBelow(leftover)).toEqual([leftover]);
    expect(await sweepLeftovers(dir)).toEqual({ removed: [leftover], left: [] });
    expect(mountsAtOrBelow(leftover)).toEqual([]);
    expect(existsSync(leftover)).toBe(false);
  });
});
