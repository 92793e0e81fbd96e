import { nodeCrypto } from '../core/builtins.js';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sha256 } from '../core/digest.js';
import { decodeCache, DIGEST_BYTES, encodeCache, KIND_DIR, KIND_FILE, type CacheImage } from './blob.js';
import { RecordStore } from './record-store.js';
import { decodeListing, encodeListing, type DirListing } from './dir-listing.js';
import { isRacy, putStat, sameStat, STAT_WORDS, type StatIdentity } from './stat-key.js';

/** How the cache file was found when the cache was opened. */
export type CacheOrigin = 'loaded' | 'absent' | 'rejected';

const CACHE_FILE = 'statcache';
/** The listing text of a directory whose stat alone is remembered (a probe on the way to a base). */
const STAT_ONLY = '?';

/**
 * Remembers, per workspace-relative path, the stat identity of a file with
 * its SHA-256, and of a directory with its listing. A remembered value is
 * handed out only for a stat identical in all six words (stat-key.ts), and
 * nothing racy is ever remembered, so a hit means the bytes (or the names)
 * are the ones read before.
 *
 * Beside it, per scope, the result of its last scan with a copy of the
 * stats it depends on (`records`, record-store.ts): answering a scope from
 * its record needs nothing of this cache, which is then never read.
 *
 * The cache is one blob in the workspace's state directory (blob.ts), read
 * when first asked something and decoded lazily: paths become strings only
 * when something looks one up.
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
  private readonly probe = new BigInt64Array(STAT_WORDS);
  private readonly probeWords = new Int32Array(this.probe.buffer);
  private dirty = false;
  private found: CacheOrigin | undefined;
  /** The scopes' remembered results. */
  readonly records: RecordStore;

  private constructor(
    private readonly file: string | undefined,
    private readonly root: string,
    private readonly key: Buffer,
    stateDir: string | undefined,
  ) {
    this.records = new RecordStore(stateDir, root, key);
    if (file === undefined) this.found = 'absent';
  }

  /** The workspace's cache: read when first asked something; empty when absent, damaged or foreign. */
  static open(stateDir: string, root: string, key: Buffer): StatCache {
    return new StatCache(join(stateDir, CACHE_FILE), root, key, stateDir);
  }

  /** An in-memory cache that is never saved (tests, one-off scans). */
  static inMemory(root: string): StatCache {
    return new StatCache(undefined, root, Buffer.alloc(32), undefined);
  }

  /** How the cache file was found (reading it, if it was not read yet). */
  get origin(): CacheOrigin {
    return this.load();
  }

  private load(): CacheOrigin {
    if (this.found !== undefined) return this.found;
    let blob: Buffer;
    try {
      blob = readFileSync(this.file!);
    } catch {
      return (this.found = 'absent');
    }
    const image = decodeCache(blob, this.key, this.root);
    if (image) this.adopt(image);
    // A rejected cache is replaced on the next save.
    else this.dirty = true;
    return (this.found = image ? 'loaded' : 'rejected');
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
    this.dirty = true;
  }

  /** Number of live entries (for tests and the benchmark). */
  get size(): number {
    return this.ensureIndex().size;
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

  /** The stat words of a slot (a view: copy before the cache changes). */
  statAt(slot: number): BigInt64Array {
    return this.stats.subarray(slot * STAT_WORDS, (slot + 1) * STAT_WORDS);
  }

  /** The SHA-256 bytes of a file slot (a view). */
  digestAt(slot: number): Uint8Array {
    return this.digests.subarray(slot * DIGEST_BYTES, (slot + 1) * DIGEST_BYTES);
  }

  /** Where a directory's entry (with its listing, or its stat alone) is; undefined when there is none. */
  dirSlot(path: string): number | undefined {
    const slot = this.slotOf(path);
    return slot !== undefined && this.kinds[slot] === KIND_DIR ? slot : undefined;
  }

  /**
   * Writes the cache if anything changed. Best effort: a cache that cannot be
   * written costs speed on the next call, never correctness.
   */
  save(): void {
    this.records.save();
    if (!this.dirty || this.file === undefined || !existsSync(join(this.file, '..'))) return;
    const temp = `${this.file}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`;
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
    this.load();
    return this.ensureIndex().get(path);
  }

  /** The path index, built on the first lookup: the warm path of a remembered scope never needs it. */
  private ensureIndex(): Map<string, number> {
    if (this.index) return this.index;
    this.load();
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
    this.kinds = kinds;
    this.stats = stats;
    this.words = new Int32Array(stats.buffer);
    this.digests = digests;
    this.writtenAt = writtenAt;
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
    this.loaded = image;
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
   * longer names (deleted files and whole deleted trees).
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
    for (let slot = 0; slot < this.count; slot++) if (decide(slot)) slots.push(slot);
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
    return {
      root: this.root,
      count,
      kinds,
      stats,
      digests,
      paths: Buffer.from(pathParts.join('')),
      pathStarts,
      listings: Buffer.from(listingParts.join('')),
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
