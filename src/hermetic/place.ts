import { mkdirSync, mkdtempSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

/** statfs's magic number of a tmpfs. */
const TMPFS_MAGIC = 0x01021994;
/** A copy larger than this is not held in memory. */
const MEMORY_CAP_BYTES = 256 * 1024 ** 2;
/** The shared-memory tmpfs of a Linux system: a fixed path, never one from the environment (an agent could name a file system it serves). */
const SHM = '/dev/shm';

/**
 * Where a hermetic run's private copy is made: a new directory (0700) in
 * the system's shared-memory tmpfs when there is one with room, since
 * creating hundreds of files on a busy disk costs seconds (measured: 720
 * files, 4 s on ext4 under load, 0.2 s on tmpfs) while the copy is gone
 * after one run; else under the workspace's state directory, on the
 * workspace's own file system, where a copy can be a reflink (btrfs, XFS)
 * and where the agent gate guards it. A copy over 256 MiB always goes to
 * the state directory: memory is not spent on a large dependency tree.
 */
export function privateBase(stateDir: string, bytes: number): string {
  if (bytes <= MEMORY_CAP_BYTES && roomyTmpfs(SHM, bytes)) {
    try {
      return mkdtempSync(join(SHM, 'vouch-hermetic-'));
    } catch {
      // Full or not writable after all: the state directory below.
    }
  }
  mkdirSync(join(stateDir, 'hermetic'), { recursive: true, mode: 0o700 });
  return mkdtempSync(join(stateDir, 'hermetic', 'run-'));
}

function roomyTmpfs(dir: string, bytes: number): boolean {
  try {
    const fs = statfsSync(dir);
    // Room for the copy twice over and 64 MiB beside it: a run must not fill the memory other processes use.
    return fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize > 2 * bytes + 64 * 1024 ** 2;
  } catch {
    return false;
  }
}
