import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sha256 } from '../core/digest.js';
import { decodeCache, encodeCache, KIND_DIR, KIND_FILE, type CacheImage } from './blob.js';
import { decodeListing, encodeListing, type DirListing } from './dir-listing.js';
import { isRacy, putStat, sameStat, STAT_WORDS, type StatIdentity } from './stat-key.js';

/** How the cache file was found when the cache was opened. */
export type CacheOrigin = 'loaded' | 'absent' | 'rejected';

const CACHE_FILE = 'statcache';

/**
 * Remembers, per workspace-relative path, the stat identity of a file with
 * its SHA-256, and of a directory with its listing. A remembered value is
 * handed out only for a stat identical in all six words (stat-key.ts), and
 * nothing racy is ever remembered, so a hit means the bytes (or the names)
 * are the ones read before.
 *
 * The cache is one blob in the workspace's state directory, written whole
 * to a temporary file and renamed over the old one: concurrent vouch
 * processes each leave a complete cache (the last rename wins), never a
 * mixture; a torn, foreign or forged blob fails its MAC and is ignored.
 */
export class StatCache {
  private paths: string[] = [];
  private kinds = new Uint8Array(64);
  private stats = new BigInt64Array(64 * STAT_WORDS);
  private words = new Int32Array(this.stats.buffer);
  private payloads: string[] = [];
  private readonly index = new Map<string, number>();
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
    const slot = this.index.get(path);
    return slot !== undefined && this.kinds[slot] === KIND_FILE ? slot : undefined;
  }

  /** The hash in a file slot (from fileSlot), if `stat` is exactly the stat it was read with. */
  hashAt(slot: number, stat: StatIdentity): Sha256 | undefined {
    return this.kinds[slot] === KIND_FILE && this.matches(slot, stat) ? (this.payloads[slot] as Sha256) : undefined;
  }

  /** The remembered listing of a directory, if `stat` is exactly the stat it was listed with. */
  listing(path: string, stat: StatIdentity): DirListing | undefined {
    const slot = this.index.get(path);
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
    this.put(path, KIND_FILE, stat, sha256);
    return true;
  }

  /** Remembers a directory's listing; `stat` must have been taken before the directory was read. */
  rememberDir(path: string, stat: StatIdentity, listing: DirListing, readStartNs: bigint): boolean {
    if (isRacy(stat, readStartNs)) return false;
    const text = encodeListing(listing);
    const before = this.index.get(path);
    const changed = before === undefined || this.kinds[before] !== KIND_DIR || this.payloads[before] !== text;
    const slot = this.put(path, KIND_DIR, stat, text);
    if (changed) this.relistedAt.set(slot, ++this.clock);
    this.listings[slot] = listing;
    return true;
  }

  /** Forgets a path whose remembered stat no longer holds. */
  forget(path: string): void {
    const slot = this.index.get(path);
    if (slot === undefined) return;
    this.index.delete(path);
    this.listings[slot] = undefined;
    this.kinds[slot] = 0;
    this.dirty = true;
  }

  /** Number of live entries (for tests and the benchmark). */
  get size(): number {
    return this.index.size;
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

  private put(path: string, kind: number, stat: StatIdentity, payload: string): number {
    let slot = this.index.get(path);
    if (slot === undefined) {
      slot = this.paths.length;
      this.grow(slot + 1);
      this.paths.push(path);
      this.payloads.push(payload);
      this.index.set(path, slot);
    } else {
      this.payloads[slot] = payload;
      this.listings[slot] = undefined;
    }
    this.kinds[slot] = kind;
    this.writtenAt[slot] = this.clock;
    putStat(this.stats, slot, stat);
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
    const writtenAt = new Uint32Array(capacity);
    writtenAt.set(this.writtenAt);
    this.writtenAt = writtenAt;
    this.kinds = kinds;
    this.stats = stats;
    this.words = new Int32Array(stats.buffer);
  }

  private adopt(image: CacheImage): void {
    const count = image.paths.length;
    this.grow(count);
    this.kinds.set(image.kinds);
    this.stats.set(image.stats);
    // Fresh arrays from decodeCache, owned from here on.
    this.paths = image.paths as string[];
    this.payloads = image.payloads as string[];
    for (let slot = 0; slot < count; slot++) this.index.set(this.paths[slot]!, slot);
  }

  /**
   * The live entries, without those a fresher listing of their directory no
   * longer names (deleted files and whole deleted trees).
   */
  private image(): CacheImage {
    const keep = new Int8Array(this.paths.length); // 0 unknown, 1 keep, -1 drop
    const names = new Map<number, Set<string>>();
    // A saved cache is consistent and loading keeps it so: an entry can have
    // vanished only from a directory listed afresh since, or below one.
    const decide = (slot: number): boolean => {
      if (keep[slot] !== 0) return keep[slot] === 1;
      let kept = this.kinds[slot] !== 0;
      if (kept && this.relistedAt.size > 0) {
        const path = this.paths[slot]!;
        const slash = path.lastIndexOf('/');
        const parent = path === '' ? undefined : this.index.get(slash < 0 ? '' : path.slice(0, slash));
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
    for (let slot = 0; slot < this.paths.length; slot++) if (decide(slot)) slots.push(slot);
    const stats = new BigInt64Array(slots.length * STAT_WORDS);
    const kinds = new Uint8Array(slots.length);
    slots.forEach((slot, i) => {
      stats.set(this.stats.subarray(slot * STAT_WORDS, (slot + 1) * STAT_WORDS), i * STAT_WORDS);
      kinds[i] = this.kinds[slot]!;
    });
    return {
      root: this.root,
      paths: slots.map((slot) => this.paths[slot]!),
      kinds,
      stats,
      payloads: slots.map((slot) => this.payloads[slot]!),
    };
  }

  /** A directory slot's listing; undefined when its stored text is damaged (it is then never handed out). */
  private listingOf(slot: number): DirListing | undefined {
    return (this.listings[slot] ??= decodeListing(this.payloads[slot]!));
  }
}
