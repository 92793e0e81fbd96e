import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A job's temporary directory: `vouch-job-<worker pid>-<random>` in the system temp dir. */
export const JOB_DIR_PREFIX = 'vouch-job-';

export function jobDirPrefix(pid: number = process.pid): string {
  return join(tmpdir(), `${JOB_DIR_PREFIX}${pid}-`);
}

/**
 * Removes the job directories that workers killed mid-job (SIGKILL, a
 * crash) left behind: ours by name and owner, named for a process that no
 * longer runs. A directory of a live process, another user's, a link, or
 * any other name is left alone. Returns the paths removed.
 */
export function sweepLeftovers(dir: string = tmpdir(), alive: (pid: number) => boolean = isAlive): string[] {
  const removed: string[] = [];
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const match = /^vouch-job-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid === process.pid || alive(pid)) continue;
    const path = join(dir, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat?.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue;
    try {
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // Best effort: the next worker to start tries again.
    }
  }
  return removed;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
