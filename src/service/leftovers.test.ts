import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jobDirPrefix, sweepLeftovers } from './leftovers.js';

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
  it('removes a dead worker\'s job directory, and leaves a live one\'s, a link, and other names alone', () => {
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
    const live = make(`vouch-job-${process.pid}-xyz789`);
    const foreign = make(`vouch-jobs-${dead}-AbC123`);
    const target = make('elsewhere');
    const link = join(dir, `vouch-job-${dead}-LnK000`);
    symlinkSync(target, link);
    expect(sweepLeftovers(dir)).toEqual([leftover]);
    expect(existsSync(leftover)).toBe(false);
    for (const kept of [live, foreign, target, link]) expect(existsSync(kept), kept).toBe(true);
    expect(existsSync(join(target, 'tree', 'a.txt'))).toBe(true);
  });

  it('a job directory is named for its worker, so that the sweep can tell', () => {
    expect(jobDirPrefix(1234)).toBe(join(tmpdir(), 'vouch-job-1234-'));
    const made = mkdtempSync(jobDirPrefix());
    dirs.push(made);
    expect(made).toMatch(new RegExp(`vouch-job-${process.pid}-[A-Za-z0-9]{6}$`));
    // Its own directories are never swept while it runs.
    expect(sweepLeftovers()).not.toContain(made);
  });
});
