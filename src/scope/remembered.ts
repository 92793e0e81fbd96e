import { recordPath, recordSha, type ScopeRecord } from '../cache/scope-record.js';
import type { StatCache } from '../cache/stat-cache.js';
import { sameStat, STAT_WORDS } from '../cache/stat-key.js';
import type { Sha256 } from '../core/digest.js';
import type { Group, Manifest, ManifestFile, RefusedFile } from './manifest.js';
import type { ScanProblem, ScanResult, ScopeRequest } from './scan-types.js';
import { excludesOf } from './excludes.js';
import { lstatParts } from './stat-batch.js';
import { sha256Of } from '../core/hash.js';

// A scope's remembered result (StatCache records): how it is keyed, how a
// scan's result is stored, and the warm path that answers from it when a
// fresh lstat of every entry it covers matches.

// Codes are append-only: a record keeps its meaning (4 came with `inputs`; a
// record never outlives the build that wrote it, scope-record.ts).
const GROUP_CODES: Record<Group, number> = { source: 1, test: 2, artifact: 3, input: 4 };
const GROUPS: readonly (Group | undefined)[] = [undefined, 'source', 'test', 'artifact', 'input'];

/**
 * What a scan's result depends on besides the files: the scope's globs
 * (inputs among them), excludes (the defaults that apply among them) and allow_missing, in the order written (it decides the order of
 * the problems), and the groups asked for. Not the check's id or command:
 * two checks with one scope share one record.
 */
export function scopeKey(request: ScopeRequest): string {
  const { sources, tests, artifacts, inputs, allowMissing } = request.scope;
  const exclude = excludesOf(request.scope);
  return sha256Of(JSON.stringify({ v: 1, sources, tests, artifacts, inputs, exclude, allowMissing, groups: request.groups }))
    .toString('hex')
    .slice(0, 32);
}

/** A scan result with its manifest's digest known, so it need not be computed again. */
export interface RememberedScan extends ScanResult {
  readonly manifestDigest: Sha256;
}

/** What the warm path did, for tests and the benchmark. */
export interface WarmCounts {
  scopesRemembered: number;
  /** Entries compared, summed over the records. */
  pathsChecked: number;
  /** lstat calls made for them: a path several records hold is lstat'ed once. */
  lstatCalls: number;
}

/**
 * Answers each key whose record (cache/scope-record.ts) holds: one batch
 * lstat of every entry it depends on, each matching the stat it remembers,
 * and the record is the answer: no directory listed, no glob matched, no
 * string built per path, nothing of the stat cache read. Any other key gets
 * undefined, and its caller walks.
 *
 * Sound because of what a record holds: every directory the scope's walk
 * listed or passed through on the way to a base, and every file it hashed,
 * each remembered only when not racy (stat-key.ts). A file added, removed or
 * renamed changes its directory's mtime and ctime; an edit, chmod or swap
 * changes the file's own stat; a directory on the way replaced by a link
 * changes its own. Scopes whose result involved a link, or anything that
 * could not be read, are never recorded (scan.ts).
 *
 * Every record's entries go in one batch: overlapping checks (a package's
 * tests inside the whole tree's typecheck) share most of their entries, and
 * lstatParts lstats a path once however many records name it, reading each
 * record's paths where they are (no copy into one buffer).
 */
export function answerFromRecords(
  cache: StatCache,
  keys: readonly string[],
  root: string,
  relative: boolean,
  counts: WarmCounts,
): (RememberedScan | undefined)[] {
  const records = keys.map((key) => cache.records.get(key));
  const present = records.filter((record): record is ScopeRecord => record !== undefined);
  if (present.length === 0) return records.map(() => undefined);
  const { stats, errs, calls } = lstatParts(
    root,
    present.map((record) => ({ text: record.paths, starts: record.pathStarts })),
    relative,
  );
  counts.pathsChecked += errs.length;
  counts.lstatCalls += calls;
  const now = new Int32Array(stats.buffer);
  const answers = new Map<ScopeRecord, RememberedScan | undefined>();
  let first = 0;
  for (const record of present) {
    answers.set(record, holds(record, now, errs, first) ? resultOf(record) : undefined);
    first += record.count;
  }
  for (const answer of answers.values()) if (answer) counts.scopesRemembered++;
  return records.map((record) => record && answers.get(record));
}

/** Whether every entry of a record, whose fresh stats start at entry `first` of the batch, matches the stat it remembers. */
function holds(record: ScopeRecord, now: Int32Array, errs: Int32Array, first: number): boolean {
  const then = new Int32Array(record.stats.buffer, record.stats.byteOffset, record.count * STAT_WORDS * 2);
  for (let i = 0; i < record.count; i++) if (errs[first + i] !== 0 || !sameStat(now, first + i, then, i)) return false;
  return true;
}

/** A record as a scan result; the manifest is built only when someone reads it (a fresh PASS never does). */
function resultOf(record: ScopeRecord): RememberedScan {
  let manifest: Manifest | undefined;
  // rememberScan stored these from a ScanResult, and the record's MAC says nobody changed them since.
  const problems = record.problems as readonly ScanProblem[];
  const refused = record.refused as readonly RefusedFile[];
  return {
    manifestDigest: record.digest,
    problems,
    get manifest(): Manifest {
      if (!manifest) {
        const files: ManifestFile[] = [];
        for (let i = 0; i < record.files; i++) {
          files.push([recordPath(record, i), recordSha(record, i), Number(record.stats[i * STAT_WORDS + 3]), GROUPS[record.groups[i]!]!]);
        }
        manifest = { files, refused };
      }
      return manifest;
    },
  };
}

/**
 * Stores a scan's result as the scope's record, with a copy of the stat of
 * every file (and its hash) and directory it depends on, as the stat cache
 * holds them now: each must be there (nothing racy, nothing unreadable), or
 * the scope gets no record and the next call walks it.
 */
export function rememberScan(cache: StatCache, key: string, scan: ScanResult, manifestDigest: Sha256, dirs: readonly string[]): boolean {
  const files = scan.manifest.files;
  const count = files.length + dirs.length;
  const stats = new BigInt64Array(count * STAT_WORDS);
  const digests = new Uint8Array(files.length * 32);
  const groups = new Uint8Array(files.length);
  for (const [i, [path, sha256, , group]] of files.entries()) {
    const slot = cache.fileSlot(path);
    if (slot === undefined || cache.shaAt(slot) !== sha256) return dropped(cache, key);
    stats.set(cache.statAt(slot), i * STAT_WORDS);
    digests.set(cache.digestAt(slot), i * 32);
    groups[i] = GROUP_CODES[group];
  }
  for (const [j, dir] of dirs.entries()) {
    const slot = cache.dirSlot(dir);
    if (slot === undefined) return dropped(cache, key);
    stats.set(cache.statAt(slot), (files.length + j) * STAT_WORDS);
  }
  const names = [...files.map((file) => file[0]), ...dirs];
  const pathStarts = new Uint32Array(count);
  let at = 0;
  names.forEach((name, i) => {
    pathStarts[i] = at;
    at += Buffer.byteLength(name) + 1;
  });
  cache.records.put({
    key,
    digest: manifestDigest,
    problems: scan.problems,
    refused: scan.manifest.refused,
    count,
    files: files.length,
    stats,
    pathStarts,
    groups,
    digests,
    paths: Buffer.from(names.map((name) => `${name}\0`).join('')),
  });
  return true;
}

function dropped(cache: StatCache, key: string): false {
  cache.records.drop(key);
  return false;
}
