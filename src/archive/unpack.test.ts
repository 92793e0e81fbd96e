import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createGzip, gunzipSync, gzipSync } from 'node:zlib';
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

/** One gzip member inflating to 16 MiB of zeros; gunzip reads concatenated members as one stream, so 128 of them are 2 GiB. */
const ZEROS_16M = gzipSync(Buffer.alloc(16 * 1024 * 1024));

const LIMITS = { maxBytes: 1000 + 10 * 1024 + 1024, maxEntries: 10, maxMs: 20_000 };

describe('unpacking a submitted tree', () => {
  it('round-trips what the client packs: paths, bytes, the executable bit', async () => {
    const { root } = fresh();
    const archive = await packTarGz([
      { path: 'vouch.yaml', bytes: Buffer.from('version: 1\n'), executable: false },
      { path: 'bin/run.sh', bytes: Buffer.from('#!/bin/sh\n'), executable: true },
      { path: 'src/deep/a.ts', bytes: Buffer.from('a'), executable: false },
    ]);
    expect(await unpackTarGz(archive, root, LIMITS)).toEqual({ ok: true, files: 3, bytes: 22 });
    expect(readFileSync(join(root, 'vouch.yaml'), 'utf8')).toBe('version: 1\n');
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
    [
      'a symlink then a file through it',
      [
        { name: 'src', type: 'symlink', linkname: '/tmp' },
        { name: 'src/x', body: 'x' },
      ],
      'link',
    ],
    ['a hard link', [{ name: 'src/hard', type: 'link', linkname: '/etc/shadow' }], 'link'],
    ['a character device', [{ name: 'dev/null', type: 'character-device' }], 'special_file'],
    ['a block device', [{ name: 'dev/sda', type: 'block-device' }], 'special_file'],
    ['a FIFO', [{ name: 'pipe', type: 'fifo' }], 'special_file'],
    [
      'a path given twice',
      [
        { name: 'a.txt', body: '1' },
        { name: './a.txt', body: '2' },
      ],
      'duplicate',
    ],
    ['a backslash name', [{ name: 'src\\..\\..\\x', body: 'x' }], 'bad_name'],
    ['too many bytes', [{ name: 'big', body: 'x'.repeat(LIMITS.maxBytes) }], 'too_large'],
    [
      'a .git directory (its config runs commands: core.fsmonitor)',
      [{ name: '.git/config', body: '[core]\n\tfsmonitor = "touch /tmp/pwned"\n' }],
      'reserved_name',
    ],
    ['a nested .git', [{ name: 'src/sub/.git/config', body: 'x' }], 'reserved_name'],
    ['a .GIT in other case', [{ name: '.GIT/HEAD', body: 'x' }], 'reserved_name'],
    ['a .git file', [{ name: 'src/.git', body: 'gitdir: /etc' }], 'reserved_name'],
    ['vouch state at the root', [{ name: '.vouch/ledger.db', body: 'x' }], 'reserved_name'],
    ['too many entries', Array.from({ length: 11 }, (_, i) => ({ name: `f${i}`, body: '' })), 'too_many_entries'],
  ])('refuses %s, and writes nothing outside the directory', async (_name, entries, reason) => {
    const { base, root } = fresh();
    const result = await unpackTarGz(await hostile(entries), root, LIMITS);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.refusal.reason).toBe(reason);
    expect(existsSync(join(base, 'escape.txt'))).toBe(false);
  });

  it("refuses bytes that are not a gzip'd tar", async () => {
    const { root } = fresh();
    const result = await unpackTarGz(Buffer.from('not an archive at all'), root, LIMITS);
    expect(!result.ok && result.refusal.reason).toBe('not_an_archive');
  });

  it('a decompression bomb after a valid archive (2 MB of gzip, 2 GiB of zeros) is not read past the end marker', async () => {
    const { root } = fresh();
    const archive = await packTarGz([{ path: 'vouch.yaml', bytes: Buffer.from('version: 1\n'), executable: false }]);
    let sent = 0;
    const source = Readable.from(
      (function* () {
        yield archive;
        for (let i = 0; i < 128; i++) {
          sent++;
          yield ZEROS_16M;
        }
      })(),
    );
    const result = await unpackTarGz(source, root, { maxBytes: 4 * 1024 ** 3, maxEntries: 10, maxMs: 60_000 });
    expect(result).toEqual({ ok: true, files: 1, bytes: 11 });
    // Read-ahead takes a member or two; the rest (about 2 GiB inflated) is never read.
    expect(sent).toBeLessThan(4);
  });

  it('a bomb inside an entry (one file of 2 GiB of zeros) is refused at the byte limit, not read to its end', async () => {
    const { root } = fresh();
    // A header claiming a 2 GiB file, then the zeros: patched by hand, as an attacker would.
    const block = Buffer.from(gunzipSync(await hostile([{ name: 'zeros', body: '' }])).subarray(0, 512));
    block.write('20000000000\0', 124, 'latin1');
    block.fill(' ', 148, 156);
    let sum = 0;
    for (const byte of block) sum += byte;
    block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    let sent = 0;
    const source = Readable.from(
      (function* () {
        yield gzipSync(block);
        for (let i = 0; i < 128; i++) {
          sent++;
          yield ZEROS_16M;
        }
      })(),
    );
    const result = await unpackTarGz(source, root, { maxBytes: 64 * 1024 * 1024, maxEntries: 10, maxMs: 60_000 });
    expect(!result.ok && result.refusal.reason).toBe('too_large');
    expect(sent).toBeLessThan(10);
  });

  it('a source that stalls is refused when the time runs out (too_slow)', async () => {
    const { root } = fresh();
    const archive = await packTarGz([{ path: 'vouch.yaml', bytes: Buffer.from('version: 1\n'), executable: false }]);
    const stalled = new Readable({ read() {} });
    stalled.push(archive.subarray(0, 10));
    const result = await unpackTarGz(stalled, root, { ...LIMITS, maxMs: 200 });
    expect(!result.ok && result.refusal.reason).toBe('too_slow');
  });

  it('refuses a zero block where a header was due, followed by more entries', async () => {
    const { root } = fresh();
    const one = await packTarGz([{ path: 'a', bytes: Buffer.from('1'), executable: false }]);
    const tarBytes = gunzipSync(one);
    // Header and data of "a", one zero block, then "a" again as "b".
    const entry = Buffer.from(tarBytes.subarray(0, 1024));
    const second = Buffer.from(entry);
    second.write('b', 0, 'latin1');
    const forged = Buffer.concat([entry, Buffer.alloc(512), second, Buffer.alloc(1024)]);
    const result = await unpackTarGz(gzipSync(forged), root, LIMITS);
    expect(!result.ok && result.refusal.reason).toBe('not_an_archive');
  });
});
