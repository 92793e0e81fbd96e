import { createHash } from 'node:crypto';
import type { ScopeRecord, StatCache } from '../cache/stat-cache.js';
import type { Sha256 } from '../core/digest.js';
import type { Group, Manifest, ManifestFile } from './manifest.js';
import type { ScanResult, ScopeRequest } from './scan.js';
import { lstatBatch } from './stat-batch.js';

// A scope's remembered result (StatCache records): how it is keyed, how a
// scan's result is stored, and the warm path that answers from it when a
// fresh lstat of every entry it covers matches.

const GROUP_CODES: Record<Group, number> = { source: 1, test: 2, artifact: 3 };
const GROUPS: readonly (Group | undefined)[] = [undefined, 'source', 'test', 'artifact'];

/**
 * What a scan's result depends on besides the files: the scope's globs,
 * excludes and allow_missing, in the order written (it decides the order of
 * the problems), and the groups asked for. Not the check's id or command:
 * two checks with one scope share one record.
 */
export function scopeKey(request: ScopeRequest): string {
  const { sources, tests, artifacts, exclude, allowMissing } = request.scope;
  return createHash('sha256')
    .update(JSON.stringify({ v: 1, sources, tests, artifacts, exclude, allowMissing, groups: request.groups }))
    .digest('hex')
    .slice(0, 32);
}

/** A scan result with its manifest's digest known, so it need not be computed again. */
export interface RememberedScan extends ScanResult {
  readonly manifestDigest: Sha256;
}

/** What the warm path did, for tests and the benchmark. */
export interface WarmCounts {
  scopesRemembered: number;
  pathsChecked: number;
}

/**
 * Answers each key whose record is live and whose every entry (file or
 * directory) lstats exactly as remembered: one batch lstat of the union of
 * their entries, no directory listed, no glob matched, no string built per
 * path. Any other key gets undefined, and its caller walks.
 *
 * Sound because of what a record holds: every directory the scope's walk
 * listed or passed through on the way to a base, and every file it hashed,
 * each remembered only when not racy (stat-key.ts). A file added, removed or
 * renamed changes its directory's mtime and ctime; an edit, chmod or swap
 * changes the file's own stat; a directory on the way replaced by a link
 * changes its parent's and its own. Scopes whose result involved a link, or
 * anything that could not be read, are never recorded (scan.ts).
 */
export function answerFromRecords(cache: StatCache, keys: readonly string[], root: string, relative: boolean, counts: WarmCounts): (RememberedScan | undefined)[] {
  const records = keys.map((key) => cache.record(key));
  const union: number[] = [];
  const seen = new Uint8Array(cache.slotCount);
  for (const record of records) {
    if (!record) continue;
    for (const slot of record.slots) {
      if (seen[slot] === 0) {
        seen[slot] = 1;
        union.push(slot);
      }
    }
  }
  if (union.length === 0) return records.map(() => undefined);
  const slots = Uint32Array.from(union);
  const { text, starts } = cache.pathBytes(slots);
  const { stats, errs } = lstatBatch(root, text, starts, relative);
  counts.pathsChecked += slots.length;
  const words = new Int32Array(stats.buffer);
  // Reuses the marks: 2 for an entry that changed.
  let anyChanged = false;
  slots.forEach((slot, i) => {
    if (errs[i] !== 0 || !cache.sameAt(slot, words, i)) {
      seen[slot] = 2;
      anyChanged = true;
    }
  });
  return records.map((record) => {
    if (!record || (anyChanged && record.slots.some((slot) => seen[slot] === 2))) return undefined;
    counts.scopesRemembered++;
    return resultOf(cache, record);
  });
}

/** A record as a scan result; the manifest is built only when someone reads it (a fresh PASS never does). */
function resultOf(cache: StatCache, record: ScopeRecord): RememberedScan {
  let manifest: Manifest | undefined;
  return {
    manifestDigest: record.digest,
    problems: record.problems,
    get manifest(): Manifest {
      if (!manifest) {
        const files: ManifestFile[] = [];
        for (let i = 0; i < record.files; i++) {
          const slot = record.slots[i]!;
          files.push([cache.pathOf(slot), cache.shaAt(slot), cache.sizeAt(slot), GROUPS[record.groups[i]!]!]);
        }
        manifest = { files, refused: record.refused };
      }
      return manifest;
    },
  };
}

/** Stores a scan's result as the scope's record (see StatCache.rememberRecord). */
export function rememberScan(cache: StatCache, key: string, scan: ScanResult, manifestDigest: Sha256, dirs: readonly string[]): boolean {
  const files = scan.manifest.files.map(([path, sha256, , group]) => [path, sha256, GROUP_CODES[group]] as const);
  return cache.rememberRecord({ key, digest: manifestDigest, problems: scan.problems, refused: scan.manifest.refused }, files, dirs);
}
