import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { lstatSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STAT_WORDS } from '../cache/stat-key.js';
import { lstatBatch, lstatEach, statPath } from './stat-batch.js';

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
  return ['', 'src', 'src/a.ts', 'src/deep', 'src/deep/er', 'src/deep/er/b.ts', 'src/ünïcode ✓.ts', 'big.bin', 'src/link', 'src/dangling', 'src/dirlink', 'src/dirlink/er', 'src/fifo', 'missing', 'src/a.ts/inside-a-file', ...many];
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

  it('names paths relative to the working directory in the fallback when that is the root', () => {
    const before = process.cwd();
    const absolute = { stats: new BigInt64Array(starts.length * STAT_WORDS), errs: new Int32Array(starts.length) };
    lstatEach(root, text, starts, false, absolute.stats, absolute.errs);
    try {
      process.chdir(root);
      const relative = { stats: new BigInt64Array(starts.length * STAT_WORDS), errs: new Int32Array(starts.length) };
      lstatEach(root, text, starts, true, relative.stats, relative.errs);
      expect([...relative.stats]).toEqual([...absolute.stats]);
      expect([...relative.errs]).toEqual([...absolute.errs]);
    } finally {
      process.chdir(before);
    }
  });
});
