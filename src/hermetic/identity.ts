import type { BigIntStats } from 'node:fs';
import { STAT_WORDS } from '../cache/stat-key.js';
import { lstatBatch } from '../scope/stat-batch.js';

/**
 * What shows that an entry of the private copy is untouched: device,
 * inode, mode, size, and mtime and ctime to the nanosecond. Writing,
 * replacing, renaming or chmod-ing it moves ctime, which no one but the
 * kernel sets (only a clock set back, as root, could put it back).
 */
export function identityOf(stat: BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.mode}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}

/**
 * The identities of many paths under `root` ('' is the root itself), in one
 * lstat batch (in C where the addon is built): what checking a copy of
 * hundreds of files after its run costs. Undefined for a path that is gone.
 */
export function lstatPaths(root: string, paths: readonly string[]): (string | undefined)[] {
  const starts = new Uint32Array(paths.length);
  let at = 0;
  paths.forEach((path, i) => {
    starts[i] = at;
    at += Buffer.byteLength(path) + 1;
  });
  const batch = lstatBatch(root, Buffer.from(paths.map((path) => `${path}\0`).join('')), starts, false);
  return paths.map((_, i) => {
    if (batch.errs[i] !== 0) return undefined;
    const w = (k: number) => batch.stats[i * STAT_WORDS + k]!;
    // Device and inode as the unsigned numbers a BigIntStats gives (the batch stores them as signed 64-bit words).
    return `${BigInt.asUintN(64, w(0))}:${BigInt.asUintN(64, w(1))}:${w(2)}:${w(3)}:${w(4)}:${w(5)}`;
  });
}
