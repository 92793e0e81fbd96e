import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sha256 } from '../core/digest.js';
import { decodeCache, encodeCache } from './blob.js';
import { cacheKey } from './key.js';
import { StatCache } from './stat-cache.js';
import { RACY_MARGIN_NS, type StatIdentity } from './stat-key.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-cache-')));
  dirs.push(dir);
  return dir;
}

const SHA = 'a'.repeat(64) as Sha256;
const OTHER_SHA = 'b'.repeat(64) as Sha256;
const NOW = 1_800_000_000_000_000_000n;
const OLD = NOW - 60_000_000_000n;

const stat = (overrides: Partial<StatIdentity> = {}): StatIdentity => ({
  dev: 2049n,
  ino: 1234567n,
  mode: 0o100644n,
  size: 42n,
  mtimeNs: OLD,
  ctimeNs: OLD,
  ...overrides,
});

/** A workspace with a state directory and a VOUCH_HOME holding the cache key. */
function workspace() {
  const base = tempDir();
  const root = join(base, 'ws');
  const state = join(root, '.vouch');
  const home = join(base, 'home');
  mkdirSync(state, { recursive: true });
  const key = cacheKey(home)!;
  return { root, state, home, key, file: join(state, 'statcache') };
}

describe('StatCache', () => {
  it('hands a hash back only for the identical stat, all six words', () => {
    const cache = StatCache.inMemory('/ws');
    expect(cache.rememberFile('src/a.ts', stat(), SHA, NOW)).toBe(true);
    expect(cache.hash('src/a.ts', stat())).toBe(SHA);
  });

  it.each([
    ['another device', { dev: 2050n }],
    ['another inode (the file was swapped by a rename)', { ino: 1234568n }],
    ['another mode (chmod, or a FIFO in its place)', { mode: 0o100755n }],
    ['another size', { size: 43n }],
    ['an mtime one nanosecond later', { mtimeNs: OLD + 1n }],
    ['an mtime set back by utimes but a new ctime', { ctimeNs: OLD + 5n }],
    ['an inode above 2^63', { ino: 2n ** 63n + 7n }],
  ])('misses for %s', (_name, change) => {
    const cache = StatCache.inMemory('/ws');
    cache.rememberFile('src/a.ts', stat(), SHA, NOW);
    expect(cache.hash('src/a.ts', stat(change))).toBeUndefined();
  });

  it('keeps inodes above 2^63 exact (stored as signed 64-bit words)', () => {
    const cache = StatCache.inMemory('/ws');
    const big = stat({ ino: 2n ** 64n - 3n });
    cache.rememberFile('a', big, SHA, NOW);
    expect(cache.hash('a', big)).toBe(SHA);
    expect(cache.hash('a', stat({ ino: 2n ** 63n - 3n }))).toBeUndefined();
  });

  it('refuses to remember a racy file: timestamps within the margin of the read', () => {
    const cache = StatCache.inMemory('/ws');
    const racy = stat({ mtimeNs: NOW - RACY_MARGIN_NS + 1n, ctimeNs: NOW - RACY_MARGIN_NS + 1n });
    expect(cache.rememberFile('a', racy, SHA, NOW)).toBe(false);
    expect(cache.hash('a', racy)).toBeUndefined();
    // A ctime inside the margin is racy even with an old mtime (utimes set it back).
    const touched = stat({ ctimeNs: NOW - 1n });
    expect(cache.rememberFile('b', touched, SHA, NOW)).toBe(false);
    // A file dated in the future is never trusted either.
    expect(cache.rememberFile('c', stat({ mtimeNs: NOW + 10n ** 12n }), SHA, NOW)).toBe(false);
    expect(cache.rememberFile('d', stat({ mtimeNs: NOW - RACY_MARGIN_NS - 1n, ctimeNs: NOW - RACY_MARGIN_NS - 1n }), SHA, NOW)).toBe(true);
  });

  it('replaces an entry and forgets one', () => {
    const cache = StatCache.inMemory('/ws');
    cache.rememberFile('a', stat(), SHA, NOW);
    cache.rememberFile('a', stat({ size: 7n }), OTHER_SHA, NOW);
    expect(cache.hash('a', stat())).toBeUndefined();
    expect(cache.hash('a', stat({ size: 7n }))).toBe(OTHER_SHA);
    cache.forget('a');
    expect(cache.hash('a', stat({ size: 7n }))).toBeUndefined();
  });

  it('saves and loads files and directory listings', () => {
    const ws = workspace();
    const cache = StatCache.open(ws.state, ws.root, ws.key);
    expect(cache.origin).toBe('absent');
    cache.rememberDir('', stat({ mode: 0o40755n, ino: 1n }), { names: ['src', 'x y.ts'], kinds: 'df' }, NOW);
    cache.rememberDir('src', stat({ mode: 0o40755n, ino: 2n }), { names: ['a.ts', 'link'], kinds: 'fl' }, NOW);
    cache.rememberFile('src/a.ts', stat({ ino: 3n }), SHA, NOW);
    cache.rememberFile('x y.ts', stat({ ino: 4n }), OTHER_SHA, NOW);
    cache.save();
    const loaded = StatCache.open(ws.state, ws.root, ws.key);
    expect(loaded.origin).toBe('loaded');
    expect(loaded.size).toBe(4);
    expect(loaded.hash('src/a.ts', stat({ ino: 3n }))).toBe(SHA);
    expect(loaded.hash('x y.ts', stat({ ino: 4n }))).toBe(OTHER_SHA);
    expect(loaded.listing('src', stat({ mode: 0o40755n, ino: 2n }))).toEqual({ names: ['a.ts', 'link'], kinds: 'fl' });
    expect(loaded.listing('', stat({ mode: 0o40755n, ino: 1n }))).toEqual({ names: ['src', 'x y.ts'], kinds: 'df' });
  });

  it('remembers an empty directory', () => {
    const ws = workspace();
    const cache = StatCache.open(ws.state, ws.root, ws.key);
    cache.rememberDir('empty', stat({ mode: 0o40755n }), { names: [], kinds: '' }, NOW);
    cache.save();
    expect(StatCache.open(ws.state, ws.root, ws.key).listing('empty', stat({ mode: 0o40755n }))).toEqual({ names: [], kinds: '' });
  });

  it('drops entries a fresher listing no longer names (a deleted file, a deleted tree)', () => {
    const ws = workspace();
    const cache = StatCache.open(ws.state, ws.root, ws.key);
    const dir = (ino: bigint) => stat({ mode: 0o40755n, ino });
    cache.rememberDir('', dir(1n), { names: ['gone', 'keep.ts', 'old.ts'], kinds: 'dff' }, NOW);
    cache.rememberDir('gone', dir(2n), { names: ['deep.ts'], kinds: 'f' }, NOW);
    cache.rememberFile('gone/deep.ts', stat({ ino: 3n }), SHA, NOW);
    cache.rememberFile('keep.ts', stat({ ino: 4n }), SHA, NOW);
    cache.rememberFile('old.ts', stat({ ino: 5n }), SHA, NOW);
    // The root was listed again: "gone" and "old.ts" were deleted.
    cache.rememberDir('', dir(1n), { names: ['keep.ts'], kinds: 'f' }, NOW);
    cache.save();
    const loaded = StatCache.open(ws.state, ws.root, ws.key);
    expect(loaded.size).toBe(2);
    expect(loaded.hash('keep.ts', stat({ ino: 4n }))).toBe(SHA);
    expect(loaded.hash('old.ts', stat({ ino: 5n }))).toBeUndefined();
    expect(loaded.hash('gone/deep.ts', stat({ ino: 3n }))).toBeUndefined();
  });

  it('after loading, drops only what a directory listed afresh no longer names, with its subtree', () => {
    const ws = workspace();
    const dir = (ino: bigint) => stat({ mode: 0o40755n, ino });
    const first = StatCache.open(ws.state, ws.root, ws.key);
    first.rememberDir('', dir(1n), { names: ['a', 'b'], kinds: 'dd' }, NOW);
    first.rememberDir('a', dir(2n), { names: ['gone', 'x.ts'], kinds: 'df' }, NOW);
    first.rememberDir('a/gone', dir(3n), { names: ['deep.ts'], kinds: 'f' }, NOW);
    first.rememberFile('a/gone/deep.ts', stat({ ino: 4n }), SHA, NOW);
    first.rememberFile('a/x.ts', stat({ ino: 5n }), SHA, NOW);
    first.rememberDir('b', dir(6n), { names: ['y.ts'], kinds: 'f' }, NOW);
    first.rememberFile('b/y.ts', stat({ ino: 7n }), SHA, NOW);
    first.save();
    const second = StatCache.open(ws.state, ws.root, ws.key);
    // Only a/ was listed again: a/gone was deleted. b/ and its file stay.
    second.rememberDir('a', dir(2n), { names: ['x.ts'], kinds: 'f' }, NOW);
    second.save();
    const third = StatCache.open(ws.state, ws.root, ws.key);
    expect(third.hash('b/y.ts', stat({ ino: 7n }))).toBe(SHA);
    expect(third.hash('a/x.ts', stat({ ino: 5n }))).toBe(SHA);
    expect(third.hash('a/gone/deep.ts', stat({ ino: 4n }))).toBeUndefined();
    expect(third.listing('a/gone', dir(3n))).toBeUndefined();
    expect(third.size).toBe(5);
  });

  describe('a damaged or foreign cache is ignored, never trusted', () => {
    function saved() {
      const ws = workspace();
      const cache = StatCache.open(ws.state, ws.root, ws.key);
      for (let i = 0; i < 50; i++) cache.rememberFile(`src/f${i}.ts`, stat({ ino: BigInt(i + 10) }), SHA, NOW);
      cache.save();
      return ws;
    }

    it('a flipped byte anywhere (torn write, bit rot, hand edit)', () => {
      const ws = saved();
      const blob = readFileSync(ws.file);
      const listingsAt = blob.length - 32 - blob.readUInt32LE(20);
      for (const at of [0, 10, 30, Math.floor(listingsAt / 2), listingsAt - 33, listingsAt - 1]) {
        const damaged = Buffer.from(blob);
        damaged[at]! ^= 0x01;
        writeFileSync(ws.file, damaged);
        const cache = StatCache.open(ws.state, ws.root, ws.key);
        expect(cache.origin, `byte ${at}`).toBe('rejected');
        expect(cache.size).toBe(0);
      }
    });

    it('a flipped byte in the listings (checked apart, when first asked for): no listing is handed out, the rest stays', () => {
      const ws = workspace();
      const first = StatCache.open(ws.state, ws.root, ws.key);
      const dir = stat({ mode: 0o40755n, ino: 1n });
      first.rememberDir('src', dir, { names: ['a.ts'], kinds: 'f' }, NOW);
      first.rememberFile('src/a.ts', stat({ ino: 2n }), SHA, NOW);
      first.save();
      const blob = readFileSync(ws.file);
      const listingsAt = blob.length - 32 - blob.readUInt32LE(20);
      for (const at of [listingsAt, blob.length - 33, blob.length - 1]) {
        const damaged = Buffer.from(blob);
        damaged[at]! ^= 0x01;
        writeFileSync(ws.file, damaged);
        const cache = StatCache.open(ws.state, ws.root, ws.key);
        expect(cache.listing('src', dir), `byte ${at}`).toBeUndefined();
        expect(cache.hash('src/a.ts', stat({ ino: 2n }))).toBe(SHA);
      }
      writeFileSync(ws.file, blob);
      expect(StatCache.open(ws.state, ws.root, ws.key).listing('src', dir)).toEqual({ names: ['a.ts'], kinds: 'f' });
    });

    it('a truncated file (a writer that died mid-write)', () => {
      const ws = saved();
      const blob = readFileSync(ws.file);
      for (const length of [0, 7, 24, blob.length - 33, blob.length - 1]) {
        writeFileSync(ws.file, blob.subarray(0, length));
        expect(StatCache.open(ws.state, ws.root, ws.key).origin, `length ${length}`).toBe('rejected');
      }
    });

    it("another workspace's cache copied in (same user, same key)", () => {
      const ws = saved();
      const blob = readFileSync(ws.file);
      expect(decodeCache(blob, ws.key, ws.root)).toBeDefined();
      expect(decodeCache(blob, ws.key, `${ws.root}-other`)).toBeUndefined();
    });

    it('a cache written by another build of vouch (it may store or mean things otherwise)', () => {
      const ws = saved();
      const blob = readFileSync(ws.file);
      expect(decodeCache(blob, ws.key, ws.root)).toBeDefined();
      expect(decodeCache(blob, ws.key, ws.root, 'another-build')).toBeUndefined();
    });

    it('a cache forged without the key: the edited file mapped to its old hash', () => {
      const ws = saved();
      const forged = encodeCache(
        {
          root: ws.root,
          count: 1,
          kinds: Uint8Array.of(2),
          stats: BigInt64Array.of(2049n, 10n, 0o100644n, 42n, OLD, OLD),
          digests: Buffer.from(OTHER_SHA, 'hex'),
          paths: Buffer.from('src/f0.ts\0'),
          pathStarts: Uint32Array.of(0),
          listings: Buffer.from('\0'),
        },
        Buffer.alloc(32, 7),
      );
      writeFileSync(ws.file, forged);
      const cache = StatCache.open(ws.state, ws.root, ws.key);
      expect(cache.origin).toBe('rejected');
      expect(cache.hash('src/f0.ts', stat({ ino: 10n }))).toBeUndefined();
    });

    it('a rejected cache is replaced by a sound one on the next save', () => {
      const ws = saved();
      writeFileSync(ws.file, 'garbage');
      const cache = StatCache.open(ws.state, ws.root, ws.key);
      cache.rememberFile('a', stat(), SHA, NOW);
      cache.save();
      expect(StatCache.open(ws.state, ws.root, ws.key).origin).toBe('loaded');
    });
  });

  it('writes the cache atomically, readable by its owner only, leaving no temporary file', () => {
    const ws = workspace();
    const cache = StatCache.open(ws.state, ws.root, ws.key);
    cache.rememberFile('a', stat(), SHA, NOW);
    cache.save();
    expect(lstatSync(ws.file).mode & 0o777).toBe(0o600);
    expect(readFileSync(ws.file).length).toBeGreaterThan(0);
    expect(readdirSync(ws.state)).toEqual(['statcache']);
  });
});

describe('cacheKey', () => {
  it('creates one 32-byte key, private to the user, and returns the same key after', () => {
    const home = join(tempDir(), 'home');
    const key = cacheKey(home)!;
    expect(key.length).toBe(32);
    expect(cacheKey(home)!.equals(key)).toBe(true);
    expect(lstatSync(join(home, 'cache.key')).mode & 0o777).toBe(0o600);
  });

  it('is undefined (no cache, no error) when VOUCH_HOME cannot be written', () => {
    const base = tempDir();
    writeFileSync(join(base, 'file'), '');
    expect(cacheKey(join(base, 'file', 'home'))).toBeUndefined();
  });

  it('is undefined for a key file of the wrong length', () => {
    const home = tempDir();
    writeFileSync(join(home, 'cache.key'), 'short');
    expect(cacheKey(home)).toBeUndefined();
  });
});
