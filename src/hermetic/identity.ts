import type { BigIntStats } from 'node:fs';

/**
 * What shows that an entry of the private copy is untouched: device,
 * inode, mode, size, and mtime and ctime to the nanosecond. Writing,
 * replacing, renaming or chmod-ing it moves ctime, which no one but the
 * kernel sets (only a clock set back, as root, could put it back).
 */
export function identityOf(stat: BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.mode}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}
