import type { BigIntStats } from 'node:fs';

/** The part of a stat that identifies one version of a file or directory. */
export type StatIdentity = Pick<BigIntStats, 'dev' | 'ino' | 'mode' | 'size' | 'mtimeNs' | 'ctimeNs'>;

/**
 * What the stat cache remembers of a file or directory, and compares before
 * trusting a remembered hash or listing: device, inode, mode (type and
 * permissions), size, and mtime and ctime in nanoseconds. Six signed 64-bit
 * integers, stored side by side in a BigInt64Array so that a whole cache is
 * one typed array and comparing needs no allocation.
 */
export const STAT_WORDS = 6;

const DEV = 0;
const INO = 1;
const MODE = 2;
const SIZE = 3;
const MTIME = 4;
const CTIME = 5;

/** Writes the identity of `stat` into `into` at slot `slot`. */
export function putStat(into: BigInt64Array, slot: number, stat: StatIdentity): void {
  // Assigning to a BigInt64Array wraps modulo 2^64: an unsigned inode above
  // 2^63 is stored as its two's complement, losslessly.
  const at = slot * STAT_WORDS;
  into[at + DEV] = stat.dev;
  into[at + INO] = stat.ino;
  into[at + MODE] = stat.mode;
  into[at + SIZE] = stat.size;
  into[at + MTIME] = stat.mtimeNs;
  into[at + CTIME] = stat.ctimeNs;
}

/** True when slot `a` of `left` and slot `b` of `right` hold the same identity, word for word. */
export function sameStat(left: Int32Array, a: number, right: Int32Array, b: number): boolean {
  // Compared as 32-bit halves: reading a BigInt64Array element allocates a BigInt.
  const i = a * STAT_WORDS * 2;
  const j = b * STAT_WORDS * 2;
  for (let k = 0; k < STAT_WORDS * 2; k++) if (left[i + k] !== right[j + k]) return false;
  return true;
}

/**
 * Git's racy-timestamp rule, made conservative. A file edited twice within
 * one timestamp tick keeps its size and both timestamps: its stat cannot tell
 * the two contents apart. So an entry is remembered only when its mtime and
 * ctime are more than RACY_MARGIN_NS older than a clock reading taken before
 * the file was read. Any later change then moves ctime (which no user call
 * can set back) to a value the entry cannot hold.
 *
 * The margin covers the kernel's coarse timestamp clock (it lags the wall
 * clock by up to a tick), filesystems with whole- or two-second timestamps
 * (FAT, HFS+, ext3) and a little clock skew on network filesystems.
 */
export const RACY_MARGIN_NS = 3_000_000_000n;

export function isRacy(stat: StatIdentity, readStartNs: bigint): boolean {
  const newest = stat.ctimeNs > stat.mtimeNs ? stat.ctimeNs : stat.mtimeNs;
  return newest >= readStartNs - RACY_MARGIN_NS;
}

/** The wall clock in nanoseconds, as file timestamps count it. */
export function wallClockNs(now: Date): bigint {
  return BigInt(now.getTime()) * 1_000_000n;
}
