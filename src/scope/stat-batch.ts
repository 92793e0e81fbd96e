import { lstatSync } from 'node:fs';
import { constants } from 'node:os';
import { nativeAddon, type NativePath } from '../core/native.js';
import { putStat, STAT_WORDS } from '../cache/stat-key.js';

/**
 * lstat for many workspace-relative paths at once, with packed results: the
 * stat identity of path i in `stats` at words [6i, 6i+6) (stat-key.ts), and
 * its errno in `errs[i]` (0 when it was read; the words are then zero).
 *
 * Paths are given as one buffer of NUL-terminated UTF-8 names and the byte
 * offset where each starts, which is how the stat cache already holds them:
 * a warm call needs no string per path. The empty path is the root.
 *
 * Two implementations give the same answers, word for word
 * (stat-batch.test.ts runs both on one tree): a small Node-API addon
 * (native/lstat_batch.c, built at install) that calls fstatat on two
 * threads, and this module's JavaScript loop over lstatSync, used when the
 * addon is absent or does not load, or when VOUCH_NATIVE=0. Both lstat a
 * path named more than once in a batch once (overlapping scopes share most
 * of their entries) and give every naming of it that answer.
 */
export interface StatBatch {
  readonly stats: BigInt64Array;
  readonly errs: Int32Array;
  /** How many lstat calls answered the batch: one per distinct path. */
  readonly calls: number;
}

/** Which implementation answers: the addon, or the JavaScript fallback and why. */
export type StatPath = NativePath;

/** Paths as the stat cache holds them: NUL-terminated names in one buffer, and where each starts. */
export interface StatPart {
  readonly text: Buffer;
  readonly starts: Uint32Array;
}

/** The implementation lstatBatch uses with this environment. */
export function statPath(env: NodeJS.ProcessEnv = process.env): StatPath {
  return nativeAddon(env).path;
}

/**
 * lstats every path named in `text` at `starts`, relative to `root` (an
 * absolute, canonical directory). `relative` says the working directory is
 * the root, so the fallback may name paths to the kernel without it (the
 * addon always resolves from a descriptor of the root).
 */
export function lstatBatch(root: string, text: Buffer, starts: Uint32Array, relative: boolean, env: NodeJS.ProcessEnv = process.env): StatBatch {
  return lstatParts(root, [{ text, starts }], relative, env);
}

/**
 * lstatBatch over several parts at once (each scope record's paths, without
 * copying them into one buffer): the entries of every part, in order, are
 * the batch, and a path that several parts name is lstat'ed once.
 */
export function lstatParts(root: string, parts: readonly StatPart[], relative: boolean, env: NodeJS.ProcessEnv = process.env): StatBatch {
  const count = parts.reduce((sum, part) => sum + part.starts.length, 0);
  const stats = new BigInt64Array(count * STAT_WORDS);
  const errs = new Int32Array(count);
  if (count === 0) return { stats, errs, calls: 0 };
  const { addon } = nativeAddon(env);
  const calls = addon
    ? addon.lstatBatch(
        root,
        parts.map((part) => part.text),
        parts.map((part) => part.starts),
        stats,
        errs,
      )
    : lstatEach(root, parts, relative, stats, errs);
  return { stats, errs, calls };
}

/** The JavaScript fallback: one lstatSync per distinct path, written into the same packed form. Returns the lstat calls made. */
export function lstatEach(root: string, parts: readonly StatPart[], relative: boolean, stats: BigInt64Array, errs: Int32Array): number {
  const prefix = relative && process.cwd() === root ? '' : `${root}/`;
  const seen = new Map<string, number>();
  let i = -1;
  for (const { text, starts } of parts)
    for (const start of starts) {
      i++;
      const end = start < text.length ? text.indexOf(0, start) : -1;
      if (end < 0) {
        errs[i] = constants.errno.EINVAL;
        continue;
      }
      const name = text.toString('utf8', start, end);
      const first = seen.get(name);
      if (first !== undefined) {
        stats.copyWithin(i * STAT_WORDS, first * STAT_WORDS, (first + 1) * STAT_WORDS);
        errs[i] = errs[first]!;
        continue;
      }
      seen.set(name, i);
      const path = name === '' ? (prefix === '' ? '.' : root) : prefix + name;
      try {
        const stat = lstatSync(path, { bigint: true, throwIfNoEntry: false });
        if (stat) putStat(stats, i, stat);
        else errs[i] = constants.errno.ENOENT;
      } catch (error) {
        errs[i] = errnoOf(error as NodeJS.ErrnoException);
      }
    }
  return seen.size;
}

function errnoOf(error: NodeJS.ErrnoException): number {
  const byCode = error.code === undefined ? undefined : (constants.errno as Record<string, number | undefined>)[error.code];
  return byCode ?? (typeof error.errno === 'number' ? Math.abs(error.errno) : constants.errno.EIO);
}
