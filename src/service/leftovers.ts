import { lstatSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeTree } from './remove-tree.js';

/** A job's temporary directory: `vouch-job-<worker pid>-<random>` in the system temp dir. */
export const JOB_DIR_PREFIX = 'vouch-job-';

export function jobDirPrefix(pid: number = process.pid): string {
  return join(tmpdir(), `${JOB_DIR_PREFIX}${pid}-`);
}

/** What one sweep found: removed, or left (with why) for the next. */
export interface Swept {
  readonly removed: readonly string[];
  readonly left: readonly { readonly path: string; readonly detail: string }[];
}

/**
 * Removes the job directories that workers killed mid-job (SIGKILL, a
 * crash) left behind, and this worker's own that could not be removed when
 * their job ended: ours by name and owner, named for a process that no
 * longer runs, or for this one and no longer in use (`active`). A job's
 * tmpfs is detached first; deep trees are removed by descriptor
 * (remove-tree.ts). A directory of another live process, another user's, a
 * link, or any other name is left alone.
 */
export async function sweepLeftovers(
  dir: string = tmpdir(),
  alive: (pid: number) => boolean = isAlive,
  active: ReadonlySet<string> = new Set(),
): Promise<Swept> {
  const removed: string[] = [];
  const left: { path: string; detail: string }[] = [];
  const uid = process.getuid?.();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { removed, left };
  }
  for (const name of names) {
    const match = /^vouch-job-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    const path = join(dir, name);
    if (pid === process.pid ? active.has(path) : alive(pid)) continue;
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat?.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue;
    const done = await removeTree(path);
    if (done.ok) removed.push(path);
    else left.push({ path, detail: done.detail });
  }
  return { removed, left };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
