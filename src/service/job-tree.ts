import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobDirPrefix } from './leftovers.js';
import { removeTree } from './remove-tree.js';

/**
 * Where a job's directory lives: a tmpfs of its own of at most `bytes`
 * (the worker is root: it mounts one per job; the check's writes there are
 * charged to the job's memory too), or the host's disk, where it is bounded
 * only per file (`why`: the mount was refused, e.g. a worker that is not root).
 */
export type JobDisk = { readonly kind: 'tmpfs'; readonly bytes: number } | { readonly kind: 'disk'; readonly why: string };

/** Inodes of a job's tmpfs: files and directories are kernel memory its size does not count. */
const INODES_PER_MIB = 512;
const MOUNT = '/usr/bin/mount';

/** The directories of this process's jobs not yet removed: a sweep leaves them alone. */
export const activeJobDirs = new Set<string>();

/**
 * Whether this worker can give each job a tmpfs of `bytes`: mounts one
 * once, in a directory of its own, and removes it.
 */
export async function probeJobDisk(bytes: number): Promise<JobDisk> {
  if (process.getuid?.() !== 0) return { kind: 'disk', why: 'the worker is not root, so it cannot mount a tmpfs per job' };
  const dir = mkdtempSync(join(tmpdir(), 'vouch-disk-probe-'));
  try {
    const mounted = mountTmpfs(dir, 1024 * 1024);
    if (mounted !== null) return { kind: 'disk', why: `mount -t tmpfs was refused (${mounted})` };
    return { kind: 'tmpfs', bytes };
  } finally {
    const removed = await removeTree(dir);
    if (!removed.ok) rmdirSafe(dir);
  }
}

/**
 * One job's directory, `$TMPDIR/vouch-job-<pid>-<random>` (the worker's,
 * 0700; named for the worker, so a sweep can tell a dead worker's): a
 * tmpfs of the job's own when `disk` says so. The caller makes `job/`
 * inside it, the only part a check may write.
 */
export class JobTree {
  private constructor(readonly base: string) {}

  /** Makes it; throws when its tmpfs cannot be mounted (the worker found it could at start: this is a failure, not a gap). */
  static create(disk: JobDisk): JobTree {
    const base = mkdtempSync(jobDirPrefix());
    activeJobDirs.add(base);
    if (disk.kind === 'tmpfs') {
      const refused = mountTmpfs(base, disk.bytes);
      if (refused !== null) {
        rmdirSafe(base);
        activeJobDirs.delete(base);
        throw new Error(`cannot mount the job's tmpfs on ${base}: ${refused}`);
      }
    }
    return new JobTree(base);
  }

  /**
   * Removes the whole tree (its tmpfs detached, or walked by descriptor:
   * remove-tree.ts); never throws. What cannot be removed is left for the
   * sweep, and `onLeft` is told.
   */
  async remove(onLeft?: (path: string, detail: string) => void): Promise<void> {
    const removed = await removeTree(this.base);
    activeJobDirs.delete(this.base);
    if (!removed.ok) onLeft?.(this.base, removed.detail);
  }
}

/** Mounts a tmpfs of `bytes` on `dir`, only its owner's, nothing set-uid or device in it; null when done, else why not. */
function mountTmpfs(dir: string, bytes: number): string | null {
  const inodes = Math.max(1024, Math.ceil(bytes / (1024 * 1024)) * INODES_PER_MIB);
  const done = spawnSync(MOUNT, ['-t', 'tmpfs', '-o', `size=${bytes},nr_inodes=${inodes},mode=0700,nosuid,nodev`, 'vouch-job', dir], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  if (done.status === 0) return null;
  return (done.stderr || done.error?.message || `exit ${done.status}`).trim().split('\n')[0]!;
}

function rmdirSafe(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // The sweep tries again.
  }
}
