import { statSync } from 'node:fs';
import { join } from 'node:path';
import { STAT_WORDS } from '../cache/stat-key.js';
import { lstatBatch } from './stat-batch.js';

/**
 * Which version of each covered file a run saw. Hashes before and after a
 * run cannot see a file swapped while it ran and put back before it ended
 * (a watcher that writes a good module, waits for the test to load it, and
 * writes the broken bytes back): the bytes match, the run judged others.
 * Every write, rename or link of a file moves its ctime (which no user call
 * can set back) and a rename puts another inode at the path, so a file whose
 * device, inode or ctime differ after the run from just before it was
 * changed during it, whatever its bytes say now.
 *
 * Reading a file moves none of them (atime is not compared), so an honest
 * run that only reads its sources is never flagged.
 */
export interface RunIdentities {
  readonly paths: readonly string[];
  /** Stat words per path (stat-key.ts), zero where lstat failed. */
  readonly stats: BigInt64Array;
  readonly errs: Int32Array;
}

const DEV = 0;
const INO = 1;
const MODE = 2;
const CTIME = 5;
const S_IFMT = 0o170000n;
const S_IFLNK = 0o120000n;

/**
 * The identity of each path (workspace-relative) now: one batch of lstat;
 * a covered symlink is followed, since its target is what was read.
 */
export function identitiesOf(root: string, paths: readonly string[], relative: boolean): RunIdentities {
  const starts = new Uint32Array(paths.length);
  let at = 0;
  paths.forEach((path, i) => {
    starts[i] = at;
    at += Buffer.byteLength(path) + 1;
  });
  const { stats, errs } = lstatBatch(root, Buffer.from(paths.map((path) => `${path}\0`).join('')), starts, relative);
  paths.forEach((path, i) => {
    if (errs[i] !== 0 || (stats[i * STAT_WORDS + MODE]! & S_IFMT) !== S_IFLNK) return;
    try {
      const target = statSync(join(root, path), { bigint: true });
      stats[i * STAT_WORDS + DEV] = target.dev;
      stats[i * STAT_WORDS + INO] = target.ino;
      stats[i * STAT_WORDS + CTIME] = target.ctimeNs;
    } catch {
      errs[i] = -1;
    }
  });
  return { paths, stats, errs };
}

/** The paths whose device, inode or ctime moved between `before` and `after` (taken of the same paths), or that appeared or went. */
export function movedBetween(before: RunIdentities, after: RunIdentities): string[] {
  const moved: string[] = [];
  before.paths.forEach((path, i) => {
    const a = i * STAT_WORDS;
    const same =
      before.errs[i] === after.errs[i] &&
      before.stats[a + DEV] === after.stats[a + DEV] &&
      before.stats[a + INO] === after.stats[a + INO] &&
      before.stats[a + CTIME] === after.stats[a + CTIME];
    if (!same) moved.push(path);
  });
  return moved;
}
