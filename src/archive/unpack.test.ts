import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { packTarGz } from './pack.js';
import { unpackTarGz, type UnpackRefusal } from './unpack.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fresh(): { base: string; root: string } {
  const base = mkdtempSync(join(tmpdir(), 'vouch-unpack-'));
  dirs.push(base);
  const root = join(base, 'tree');
  mkdirSync(root);
  return { base, root };
}

interface Entry {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'character-device' | 'block-device' | 'fifo';
  linkname?: string;
  body?: string;
}

/** A gzip'd tar with exactly these headers, as a hostile client could send. */
async function hostile(entries: Entry[]): Promise<Buffer> {
  const tar = await import('tar-stream');
  const pack = tar.pack();
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => gzip.on('end', resolve));
  (pack as unknown as Readable).pipe(gzip);
  for (const entry of entries) {
    pack.entry({ name: entry.name, type: entry.type ?? 'file', ...(entry.linkname !== undefined && { linkname: entry.linkname }) }, entry.body ?? '');
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}

const LIMITS = { maxBytes: 1000, maxEntries: 10 };

describe('unpacking a submitted tree', () => {
  it('round-trips what the client packs: paths, bytes, the executable bit', async () => {
    const { root } = fresh();
    const archive = await packTarGz([
      { path: 'vouch.yaml', bytes: Buffer.from('version: 1\n'), executable: false },
      { path: 'bin/run.sh', bytes: Buffer.from('#!/bin/sh\n'), executable: true },
      { path: 'src/deep/a.ts', bytes: Buffer.from('a'), executable: false },
    ]);
    expect(await unpackTarGz(archive, root, LIMITS)).toEqual({ ok: true, files: 3, bytes: 22 });
    expect(readFileSync(join(root, 'src/deep/a.ts'), 'utf8')).toBe('a');
    expect(statSync(join(root, 'bin/run.sh')).mode & 0o111).not.toBe(0);
    expect(statSync(join(root, 'vouch.yaml')).mode & 0o111).toBe(0);
  });

  it('packs the same tree to the same bytes', async () => {
    const files = [
      { path: 'b', bytes: Buffer.from('2'), executable: false },
      { path: 'a', bytes: Buffer.from('1'), executable: false },
    ];
    expect((await packTarGz(files)).equals(await packTarGz([...files].reverse()))).toBe(true);
  });

  it.each<[string, Entry[], UnpackRefusal['reason']]>([
    ['a dot-dot escape', [{ name: '../escape.txt', body: 'x' }], 'path_escape'],
    ['a dot-dot inside a path', [{ name: 'src/../../escape.txt', body: 'x' }], 'path_escape'],
    ['an absolute path', [{ name: '/tmp/escape.txt', body: 'x' }], 'path_escape'],
    ['a symlink out', [{ name: 'src/link', type: 'symlink', linkname: '/etc/passwd' }], 'link'],
    ['a symlink then a file through it', [{ name: 'src', type: 'symlink', linkname: '/tmp' }, { name: 'src/x', body: 'x' }], 'link'],
    ['a hard link', [{ name: 'src/hard', type: 'link', linkname: '/etc/shadow' }], 'link'],
    ['a character device', [{ name: 'dev/null', type: 'character-device' }], 'special_file'],
    ['a block device', [{ name: 'dev/sda', type: 'block-device' }], 'special_file'],
    ['a FIFO', [{ name: 'pipe', type: 'fifo' }], 'special_file'],
    ['a path given twice', [{ name: 'a.txt', body: '1' }, { name: './a.txt', body: '2' }], 'duplicate'],
    ['a backslash name', [{ name: 'src\\..\\..\\x', body: 'x' }], 'bad_name'],
    ['too many bytes', [{ name: 'big', body: 'x'.repeat(1001) }], 'too_large'],
    ['too many entries', Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, body: '' })), 'too_many_entries'],
  ])('refuses %s, and writes nothing outside the directory', async (_name, entries, reason) => {
    const { base, root } = fresh();
    const result = await unpackTarGz(await hostile(entries), root, LIMITS);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.refusal.reason).toBe(reason);
    expect(existsSync(join(base, 'escape.txt'))).toBe(false);
  });

  it('refuses bytes that are not a gzip\'d tar', async () => {
    const { root } = fresh();
    const result = await unpackTarGz(Buffer.from('not an archive at all'), root, LIMITS);
    expect(!result.ok && result.refusal.reason).toBe('not_an_archive');
  });
});
