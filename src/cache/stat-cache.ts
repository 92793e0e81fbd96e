import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sha256 } from '../core/digest.js';
import type { RefusedFile } from '../scope/manifest.js';
import type { ScanProblem } from '../scope/scan.js';
import { decodeCache, DIGEST_BYTES, encodeCache, KIND_DIR, KIND_FILE, type CacheImage, type RecordImage } from './blob.js';
import { decodeListing, encodeListing, type DirListing } from './dir-listing.js';
import { isRacy, putStat, sameStat, STAT_WORDS, type StatIdentity } from './stat-key.js';

/** How the cache file was found when the cache was opened. */
export type CacheOrigin = 'loaded' | 'absent' | 'rejected';

const CACHE_FILE = 'statcache';
/** The listing text of a directory whose stat alone is remembered (a probe on the way to a base). */
const STAT_ONLY = '?';

/** One scope's remembered result (see `record`). */
export interface ScopeRecord {
  readonly key: string;
  readonly digest: Sha256;
  readonly problems: readonly ScanProblem[];
  readonly refused: readonly RefusedFile[];
  /** The first `files` slots are the manifest's files, in order; the rest are directories. */
  readonly files: number;
  readonly slots: Uint32Array;
  readonly groups: Uint8Array;
}

interface LiveRecord extends ScopeRecord {
  /** The change counter when it was made: a slot changed after this makes the record stale. */
  readonly builtAt: number;
}

/**
 * Remembers, per workspace-relative path, the stat identity of a file with
 * its SHA-256, and of a directory with its listing. A remembered value is
 * handed out only for a stat identical in all six words (stat-key.ts), and
 * nothing racy is ever remembered, so a hit means the bytes (or the names)
 * are the ones read before.
 *
 * It also remembers, per scope, the result of its last scan ("records"):
 * the entries it covered (every file, every directory it listed or passed
 * through to reach its bases) and what the scan found. When a fresh lstat of
 * each of those entries matches, nothing in the scope can have changed, and
 * the result is the answer without walking or matching a glob
 * (scope/remembered.ts).
 *
 * The cache is one blob in the workspace's state directory (blob.ts),
 * decoded lazily: paths become strings only when something looks one up.
 * It is written whole to a temporary file and renamed over the old one:
 * concurrent vouch processes each leave a complete cache (the last rename
 * wins), never a mixture; a torn, foreign or forged blob fails its MAC and
 * is ignored.
 */
export class StatCache {
  private count = 0;
  private kinds: Uint8Array = new Uint8Array(64);
  private stats: BigInt64Array = new BigInt64Array(64 * STAT_WORDS);
  private words: Int32Array = new Int32Array(this.stats.buffer);
  private digests: Uint8Array = new Uint8Array(64 * DIGEST_BYTES);
  /** The loaded image's path and listing bytes, for the slots it holds. */
  private loaded: Pick<CacheImage, 'count' | 'paths' | 'pathStarts' | 'listings' | 'listingsSound'> | undefined;
  private listingStarts: Uint32Array | undefined;
  /** Paths and listing texts decoded or written in this process, by slot. */
  private readonly paths: (string | undefined)[] = [];
  private readonly texts: (string | undefined)[] = [];
  private index: Map<string, number> | undefined;
  /** Decoded listings by slot. */
  private readonly listings: (DirListing | undefined)[] = [];
  /**
   * When each slot was last written (a counter, 0 for what was loaded), and
   * when each directory got a listing that differs from the one before. An
   * entry can have vanished only if its directory was listed afresh after
   * the entry was written; nothing else needs checking on save.
   */
  private writtenAt = new Uint32Array(64);
  private readonly relistedAt = new Map<number, number>();
  private clock = 0;
  /** Bumped whenever a slot changes; a record is live while none of its slots changed after it was made. */
  private changes = 0;
  private changedAt = new Uint32Array(64);
  private readonly records = new Map<string, LiveRecord>();
  private readonly probe = new BigInt64Array(STAT_WORDS);
  private readonly probeWords = new Int32Array(this.probe.buffer);
  private dirty = false;

  private constructor(
    private readonly file: string | undefined,
    private readonly root: string,
    private readonly key: Buffer,
    readonly origin: CacheOrigin,
  ) {}

  /** Loads the workspace's cache, or starts an empty one when it is absent, damaged or foreign. */
  static open(stateDir: string, root: string, key: Buffer): StatCache {
    const file = join(stateDir, CACHE_FILE);
    let blob: Buffer;
    try {
      blob = readFileSync(file);
    } catch {
      return new StatCache(file, root, key, 'absent');
    }
    const image = decodeCache(blob, key, root);
    const cache = new StatCache(file, root, key, image ? 'loaded' : 'rejected');
    if (image) cache.adopt(image);
    // A rejected cache is replaced on the next save.
    cache.dirty = image === undefined;
    return cache;
  }

  /** An in-memory cache that is never saved (tests, one-off scans). */
  static inMemory(root: string): StatCache {
    return new StatCache(undefined, root, Buffer.alloc(32), 'absent');
  }

  /** The remembered hash of a file, if `stat` is exactly the stat it was read with. */
  hash(path: string, stat: StatIdentity): Sha256 | undefined {
    const slot = this.fileSlot(path);
    return slot === undefined ? undefined : this.hashAt(slot, stat);
  }

  /** Where a file's entry is, whatever its stat; undefined when there is none. */
  fileSlot(path: string): number | undefined {
    const slot = this.slotOf(path);
    return slot !== undefined && this.kinds[slot] === KIND_FILE ? slot : undefined;
  }

  /** The hash in a file slot (from fileSlot), if `stat` is exactly the stat it was read with. */
  hashAt(slot: number, stat: StatIdentity): Sha256 | undefined {
    return this.kinds[slot] === KIND_FILE && this.matches(slot, stat) ? this.shaAt(slot) : undefined;
  }

  /** The remembered listing of a directory, if `stat` is exactly the stat it was listed with. */
  listing(path: string, stat: StatIdentity): DirListing | undefined {
    const slot = this.slotOf(path);
    if (slot === undefined || this.kinds[slot] !== KIND_DIR || !this.matches(slot, stat)) return undefined;
    return this.listingOf(slot);
  }

  /**
   * Remembers a file's hash, unless its timestamps are too close to
   * `readStartNs` (taken before the file was opened) to tell a later edit
   * apart. Returns whether it was remembered.
   */
  rememberFile(path: string, stat: StatIdentity, sha256: Sha256, readStartNs: bigint): boolean {
    if (isRacy(stat, readStartNs)) return false;
    this.put(path, KIND_FILE, stat, '', sha256);
    return true;
  }

  /** Remembers a directory's listing; `stat` must have been taken before the directory was read. */
  rememberDir(path: string, stat: StatIdentity, listing: DirListing, readStartNs: bigint): boolean {
    if (isRacy(stat, readStartNs)) return false;
    const text = encodeListing(listing);
    const before = this.slotOf(path);
    const changed = before === undefined || this.kinds[before] !== KIND_DIR || this.textAt(before) !== text;
    const slot = this.put(path, KIND_DIR, stat, text, undefined);
    if (changed) this.relistedAt.set(slot, ++this.clock);
    this.listings[slot] = listing;
    return true;
  }

  /**
   * Remembers a directory's stat without its listing (a directory on the way
   * to a scope's base, which a record must see unchanged), unless an entry
   * with this very stat is there already or the stat is racy.
   */
  rememberDirStat(path: string, stat: StatIdentity, readStartNs: bigint): boolean {
    const slot = this.slotOf(path);
    if (slot !== undefined && this.kinds[slot] === KIND_DIR && this.matches(slot, stat)) return true;
    if (isRacy(stat, readStartNs)) {
      this.forget(path);
      return false;
    }
    this.put(path, KIND_DIR, stat, STAT_ONLY, undefined);
    return true;
  }

  /** Forgets a path whose remembered stat no longer holds. */
  forget(path: string): void {
    const slot = this.slotOf(path);
    if (slot === undefined) return;
    this.index!.delete(path);
    this.listings[slot] = undefined;
    this.kinds[slot] = 0;
    this.changedAt[slot] = ++this.changes;
    this.dirty = true;
  }

  /** Number of live entries (for tests and the benchmark). */
  get size(): number {
    return this.ensureIndex().size;
  }

  /** Slots in use, dead ones included: the bound of every slot number. */
  get slotCount(): number {
    return this.count;
  }

  /** A scope's record, while none of the entries it covers changed in this process since it was made. */
  record(key: string): ScopeRecord | undefined {
    const record = this.records.get(key);
    if (!record) return undefined;
    // Nothing changed since it was made (the common case): no slot to look at.
    if (this.changes === record.builtAt) return record;
    for (const slot of record.slots) if (this.kinds[slot] === 0 || this.changedAt[slot]! > record.builtAt) return undefined;
    return record;
  }

  /**
   * Remembers a scope's result: its files (with their groups) and the
   * directories it depends on must each have a live entry holding what the
   * scan saw (a file's entry, its hash). Anything not remembered (racy,
   * unreadable) leaves the scope without a record: the next call walks it.
   */
  rememberRecord(record: Omit<ScopeRecord, 'slots' | 'groups' | 'files'>, files: readonly (readonly [path: string, sha256: Sha256, groupCode: number])[], dirs: readonly string[]): boolean {
    const slots = new Uint32Array(files.length + dirs.length);
    const groups = new Uint8Array(files.length + dirs.length);
    const fail = () => {
      if (this.records.delete(record.key)) this.dirty = true;
      return false;
    };
    for (const [i, [path, sha256, group]] of files.entries()) {
      const slot = this.fileSlot(path);
      if (slot === undefined || this.shaAt(slot) !== sha256) return fail();
      slots[i] = slot;
      groups[i] = group;
    }
    for (const [i, dir] of dirs.entries()) {
      const slot = this.slotOf(dir);
      if (slot === undefined || this.kinds[slot] !== KIND_DIR) return fail();
      slots[files.length + i] = slot;
    }
    this.records.set(record.key, { ...record, files: files.length, slots, groups, builtAt: this.changes });
    this.dirty = true;
    return true;
  }

  /** The path of a slot. */
  pathOf(slot: number): string {
    let path = this.paths[slot];
    if (path === undefined) {
      const loaded = this.loaded!;
      const start = loaded.pathStarts[slot]!;
      path = loaded.paths.toString('utf8', start, loaded.paths.indexOf(0, start));
      this.paths[slot] = path;
    }
    return path;
  }

  /** The SHA-256 in a file slot, as hex. */
  shaAt(slot: number): Sha256 {
    return Buffer.from(this.digests.buffer, this.digests.byteOffset + slot * DIGEST_BYTES, DIGEST_BYTES).toString('hex') as Sha256;
  }

  /** The size word of a slot. */
  sizeAt(slot: number): number {
    return Number(this.stats[slot * STAT_WORDS + 3]);
  }

  /** True when word group `i` of `words` (as stat-batch.ts packs them) is the stat remembered in `slot`. */
  sameAt(slot: number, words: Int32Array, i: number): boolean {
    return sameStat(words, i, this.words, slot);
  }

  /**
   * The paths of some slots as NUL-terminated bytes with the offset of each,
   * the form stat-batch.ts takes: the loaded bytes themselves when every slot
   * was loaded, else built afresh.
   */
  pathBytes(slots: Uint32Array): { text: Buffer; starts: Uint32Array } {
    const loaded = this.loaded;
    if (loaded && slots.every((slot) => slot < loaded.count)) {
      return { text: loaded.paths, starts: slots.map((slot) => loaded.pathStarts[slot]!) };
    }
    const starts = new Uint32Array(slots.length);
    const parts: string[] = [];
    let at = 0;
    slots.forEach((slot, i) => {
      const path = this.pathOf(slot);
      starts[i] = at;
      at += Buffer.byteLength(path) + 1;
      parts.push(path, '\0');
    });
    return { text: Buffer.from(parts.join('')), starts };
  }

  /**
   * Writes the cache if anything changed. Best effort: a cache that cannot be
   * written costs speed on the next call, never correctness.
   */
  save(): void {
    if (!this.dirty || this.file === undefined || !existsSync(join(this.file, '..'))) return;
    const temp = `${this.file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      writeFileSync(temp, encodeCache(this.image(), this.key), { mode: 0o600 });
      renameSync(temp, this.file);
      this.dirty = false;
    } catch {
      try {
        rmSync(temp, { force: true });
      } catch {
        // Nothing to clean up.
      }
    }
  }

  private matches(slot: number, stat: StatIdentity): boolean {
    putStat(this.probe, 0, stat);
    return sameStat(this.probeWords, 0, this.words, slot);
  }

  private slotOf(path: string): number | undefined {
    return this.ensureIndex().get(path);
  }

  /** The path index, built on the first lookup: the warm path of a remembered scope never needs it. */
  private ensureIndex(): Map<string, number> {
    if (this.index) return this.index;
    const index = new Map<string, number>();
    for (let slot = 0; slot < this.count; slot++) if (this.kinds[slot] !== 0) index.set(this.pathOf(slot), slot);
    return (this.index = index);
  }

  private put(path: string, kind: number, stat: StatIdentity, text: string, sha256: Sha256 | undefined): number {
    const index = this.ensureIndex();
    let slot = index.get(path);
    if (slot === undefined) {
      slot = this.count++;
      this.grow(this.count);
      this.paths[slot] = path;
      index.set(path, slot);
    }
    this.texts[slot] = text;
    this.listings[slot] = undefined;
    this.kinds[slot] = kind;
    this.writtenAt[slot] = this.clock;
    this.changedAt[slot] = ++this.changes;
    putStat(this.stats, slot, stat);
    if (sha256 === undefined) this.digests.fill(0, slot * DIGEST_BYTES, (slot + 1) * DIGEST_BYTES);
    else this.digests.set(Buffer.from(sha256, 'hex'), slot * DIGEST_BYTES);
    this.dirty = true;
    return slot;
  }

  private grow(slots: number): void {
    if (slots <= this.kinds.length) return;
    const capacity = Math.max(slots, this.kinds.length * 2);
    const kinds = new Uint8Array(capacity);
    kinds.set(this.kinds);
    const stats = new BigInt64Array(capacity * STAT_WORDS);
    stats.set(this.stats);
    const digests = new Uint8Array(capacity * DIGEST_BYTES);
    digests.set(this.digests);
    const writtenAt = new Uint32Array(capacity);
    writtenAt.set(this.writtenAt);
    const changedAt = new Uint32Array(capacity);
    changedAt.set(this.changedAt);
    this.kinds = kinds;
    this.stats = stats;
    this.words = new Int32Array(stats.buffer);
    this.digests = digests;
    this.writtenAt = writtenAt;
    this.changedAt = changedAt;
  }

  private adopt(image: CacheImage): void {
    // The image's own arrays, not copies: a warm call writes nothing, and the
    // first new entry (grow) copies them.
    this.count = image.count;
    this.kinds = image.kinds;
    this.stats = image.stats;
    this.words = new Int32Array(image.stats.buffer, image.stats.byteOffset, image.count * STAT_WORDS * 2);
    this.digests = image.digests;
    this.writtenAt = new Uint32Array(image.count);
    this.changedAt = new Uint32Array(image.count);
    this.loaded = image;
    for (const record of image.records) this.records.set(record.key, { ...record, builtAt: 0 });
  }

  /** The listing text of a slot ('' for a file). */
  private textAt(slot: number): string {
    let text = this.texts[slot];
    if (text === undefined) {
      const loaded = this.loaded!;
      // Listings that fail their MAC are not used: a directory is then listed again.
      if (!loaded.listingsSound()) return this.kinds[slot] === KIND_DIR ? STAT_ONLY : '';
      const starts = (this.listingStarts ??= nulStarts(loaded.listings, loaded.count));
      const start = starts[slot]!;
      text = loaded.listings.toString('utf8', start, loaded.listings.indexOf(0, start));
      this.texts[slot] = text;
    }
    return text;
  }

  /**
   * The live entries, without those a fresher listing of their directory no
   * longer names (deleted files and whole deleted trees), and the live
   * records whose entries all stay.
   */
  private image(): Omit<CacheImage, 'listingsSound'> {
    const keep = new Int8Array(this.count); // 0 unknown, 1 keep, -1 drop
    const names = new Map<number, Set<string>>();
    const index = this.ensureIndex();
    // A saved cache is consistent and loading keeps it so: an entry can have
    // vanished only from a directory listed afresh since, or below one.
    const decide = (slot: number): boolean => {
      if (keep[slot] !== 0) return keep[slot] === 1;
      let kept = this.kinds[slot] !== 0;
      if (kept && this.relistedAt.size > 0) {
        const path = this.pathOf(slot);
        const slash = path.lastIndexOf('/');
        const parent = path === '' ? undefined : index.get(slash < 0 ? '' : path.slice(0, slash));
        if (parent !== undefined && parent !== slot && this.kinds[parent] === KIND_DIR) {
          if ((this.relistedAt.get(parent) ?? 0) > this.writtenAt[slot]!) {
            let listed = names.get(parent);
            if (!listed) {
              listed = new Set(this.listingOf(parent)?.names);
              names.set(parent, listed);
            }
            kept = listed.has(path.slice(slash + 1));
          }
          kept &&= decide(parent);
        }
      }
      keep[slot] = kept ? 1 : -1;
      return kept;
    };
    const slots: number[] = [];
    const renumber = new Int32Array(this.count).fill(-1);
    for (let slot = 0; slot < this.count; slot++) {
      if (decide(slot)) {
        renumber[slot] = slots.length;
        slots.push(slot);
      }
    }
    const count = slots.length;
    const stats = new BigInt64Array(count * STAT_WORDS);
    const kinds = new Uint8Array(count);
    const digests = new Uint8Array(count * DIGEST_BYTES);
    const pathStarts = new Uint32Array(count);
    const pathParts: string[] = [];
    const listingParts: string[] = [];
    let at = 0;
    slots.forEach((slot, i) => {
      stats.set(this.stats.subarray(slot * STAT_WORDS, (slot + 1) * STAT_WORDS), i * STAT_WORDS);
      kinds[i] = this.kinds[slot]!;
      digests.set(this.digests.subarray(slot * DIGEST_BYTES, (slot + 1) * DIGEST_BYTES), i * DIGEST_BYTES);
      const path = this.pathOf(slot);
      pathStarts[i] = at;
      at += Buffer.byteLength(path) + 1;
      pathParts.push(path, '\0');
      listingParts.push(this.textAt(slot), '\0');
    });
    const records: RecordImage[] = [];
    for (const [key, record] of this.records) {
      // A record keeps only while it is live and every entry it covers is kept.
      if (this.record(key) === undefined || record.slots.some((slot) => renumber[slot]! < 0)) continue;
      const { builtAt: _builtAt, ...stored } = record;
      records.push({ ...stored, slots: Uint32Array.from(record.slots, (slot) => renumber[slot]!) });
    }
    return {
      root: this.root,
      count,
      kinds,
      stats,
      digests,
      paths: Buffer.from(pathParts.join('')),
      pathStarts,
      listings: Buffer.from(listingParts.join('')),
      records,
    };
  }

  /** A directory slot's listing; undefined when its stored text is damaged or only its stat is known (it is then never handed out). */
  private listingOf(slot: number): DirListing | undefined {
    return (this.listings[slot] ??= decodeListing(this.textAt(slot)));
  }
}

/** Where each of `count` NUL-terminated strings starts. */
function nulStarts(text: Buffer, count: number): Uint32Array {
  const starts = new Uint32Array(count);
  let at = 0;
  for (let i = 0; i < count; i++) {
    starts[i] = at;
    const nul = text.indexOf(0, at);
    at = nul < 0 ? text.length : nul + 1;
  }
  return starts;
}
