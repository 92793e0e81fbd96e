import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { lstatSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STAT_WORDS } from '../cache/stat-key.js';
import { lstatBatch, lstatEach, lstatParts, statPath } from './stat-batch.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-statbatch-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Every kind of entry a scope can meet, and paths that fail in each way lstat can. */
function tree(): string[] {
  mkdirSync(join(root, 'src/deep/er'), { recursive: true });
  writeFileSync(join(root, 'src/a.ts'), 'a');
  writeFileSync(join(root, 'src/deep/er/b.ts'), 'bb');
  writeFileSync(join(root, 'src/ünïcode ✓.ts'), 'u');
  writeFileSync(join(root, 'big.bin'), Buffer.alloc(70_000));
  symlinkSync('a.ts', join(root, 'src/link'));
  symlinkSync('nowhere', join(root, 'src/dangling'));
  symlinkSync('deep', join(root, 'src/dirlink'));
  execFileSync('mkfifo', [join(root, 'src/fifo')]);
  const many = Array.from({ length: 1200 }, (_, i) => `src/deep/m${i}.txt`);
  for (const path of many) writeFileSync(join(root, path), path);
  return [
    '',
    'src',
    'src/a.ts',
    'src/deep',
    'src/deep/er',
    'src/deep/er/b.ts',
    'src/ünïcode ✓.ts',
    'big.bin',
    'src/link',
    'src/dangling',
    'src/dirlink',
    'src/dirlink/er',
    'src/fifo',
    'missing',
    'src/a.ts/inside-a-file',
    ...many,
  ];
}

function pack(paths: readonly string[]): { text: Buffer; starts: Uint32Array } {
  const starts = new Uint32Array(paths.length);
  let at = 0;
  paths.forEach((path, i) => {
    starts[i] = at;
    at += Buffer.byteLength(path) + 1;
  });
  return { text: Buffer.from(paths.map((path) => `${path}\0`).join('')), starts };
}

const paths = tree();
const { text, starts } = pack(paths);

describe('lstatBatch', () => {
  it('is the native addon here (npm ci builds it; run `npm run build:native` otherwise)', () => {
    expect(statPath({})).toBe('native');
  });

  it('gives the same words and errnos from the addon and from the JavaScript fallback, on every kind of entry', () => {
    const native = lstatBatch(root, text, starts, false, {});
    const js = lstatBatch(root, text, starts, false, { VOUCH_NATIVE: '0' });
    expect(statPath({ VOUCH_NATIVE: '0' })).toBe('js:disabled');
    expect([...native.errs]).toEqual([...js.errs]);
    expect([...native.stats]).toEqual([...js.stats]);
    expect(native.errs[paths.indexOf('missing')]).toBe(constants.errno.ENOENT);
    expect(native.errs[paths.indexOf('src/a.ts/inside-a-file')]).toBe(constants.errno.ENOTDIR);
  });

  it('matches lstat word for word: links are not followed, the root is the empty path', () => {
    const { stats, errs } = lstatBatch(root, text, starts, false, {});
    for (const path of ['', 'src/a.ts', 'src/link', 'src/dirlink', 'src/fifo', 'src/ünïcode ✓.ts', 'src/dirlink/er']) {
      const i = paths.indexOf(path);
      const stat = lstatSync(join(root, path), { bigint: true });
      expect(errs[i]).toBe(0);
      expect([...stats.subarray(i * STAT_WORDS, (i + 1) * STAT_WORDS)]).toEqual([stat.dev, stat.ino, stat.mode, stat.size, stat.mtimeNs, stat.ctimeNs]);
    }
  });

  it('answers a start past the text or a name without its NUL as EINVAL, in both (never a read out of bounds)', () => {
    const bad = Buffer.from('src\0src/a.ts');
    const offsets = new Uint32Array([0, 4, 400]);
    for (const env of [{}, { VOUCH_NATIVE: '0' }]) {
      const { errs } = lstatBatch(root, bad, offsets, false, env);
      expect([...errs]).toEqual([0, constants.errno.EINVAL, constants.errno.EINVAL]);
    }
  });

  it('lstats a path named several times in one batch once, and gives every naming its answer, in both', () => {
    // Overlapping scopes: the same entries again (the longer list first), a missing path twice, and a near-namesake that must not be taken for one.
    const twice = [...paths, ...paths.slice(0, 20), 'missing', 'src/a.t', 'src/a.tsx', ''];
    const packed = pack(twice);
    const once = new Set(twice).size;
    for (const env of [{}, { VOUCH_NATIVE: '0' }]) {
      const batch = lstatBatch(root, packed.text, packed.starts, false, env);
      expect(batch.calls).toBe(once);
      const alone = lstatBatch(root, text, starts, false, env);
      for (const [i, path] of twice.entries()) {
        const j = paths.indexOf(path);
        if (j < 0) continue;
        expect(batch.errs[i], path).toBe(alone.errs[j]);
        expect([...batch.stats.subarray(i * STAT_WORDS, (i + 1) * STAT_WORDS)], path).toEqual([...alone.stats.subarray(j * STAT_WORDS, (j + 1) * STAT_WORDS)]);
      }
      expect(batch.errs[twice.lastIndexOf('src/a.t')]).toBe(constants.errno.ENOENT);
      expect(batch.errs[twice.lastIndexOf('src/a.tsx')]).toBe(constants.errno.ENOENT);
    }
  });

  it("answers several parts (scope records) as one batch, in order, without copying them together: a path in two parts is lstat'ed once", () => {
    const first = pack(paths.slice(0, 600));
    const second = pack([...paths.slice(300, 700), 'missing']);
    // A bad start in a part of its own is that entry's EINVAL, not a read of the neighbouring text.
    const bad = { text: Buffer.from('src\0src/a.ts'), starts: new Uint32Array([4, 0]) };
    const whole = [...paths.slice(0, 600), ...paths.slice(300, 700), 'missing'];
    for (const env of [{}, { VOUCH_NATIVE: '0' }]) {
      const parts = lstatParts(root, [first, second, bad], false, env);
      const one = lstatBatch(root, pack(whole).text, pack(whole).starts, false, env);
      // The bad part's good entry (src/a.ts) is named in the first part too; its EINVAL entry is never lstat'ed.
      expect(parts.calls).toBe(new Set([...whole, 'src/a.ts']).size);
      expect(parts.calls).toBeLessThan(whole.length);
      expect([...parts.errs.subarray(0, whole.length)]).toEqual([...one.errs]);
      expect([...parts.stats.subarray(0, whole.length * STAT_WORDS)]).toEqual([...one.stats]);
      expect([...parts.errs.subarray(whole.length)]).toEqual([constants.errno.EINVAL, 0]);
    }
  });

  it('names paths relative to the working directory in the fallback when that is the root', () => {
    const before = process.cwd();
    const absolute = { stats: new BigInt64Array(starts.length * STAT_WORDS), errs: new Int32Array(starts.length) };
    lstatEach(root, [{ text, starts }], false, absolute.stats, absolute.errs);
    try {
      process.chdir(root);
      const relative = { stats: new BigInt64Array(starts.length * STAT_WORDS), errs: new Int32Array(starts.length) };
      lstatEach(root, [{ text, starts }], true, relative.stats, relative.errs);
      expect([...relative.stats]).toEqual([...absolute.stats]);
      expect([...relative.errs]).toEqual([...absolute.errs]);
    } finally {
      process.chdir(before);
    }
  });
});
