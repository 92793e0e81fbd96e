import { mkdirSync, openSync, writeSync, closeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { isInside } from '../scope/scan.js';

export interface UnpackLimits {
  /** Bytes of file content, all entries together. */
  readonly maxBytes: number;
  readonly maxEntries: number;
}

/** Why an archive was refused; `entry` names the offending member when there is one. */
export interface UnpackRefusal {
  readonly reason: 'not_an_archive' | 'path_escape' | 'bad_name' | 'link' | 'special_file' | 'duplicate' | 'too_large' | 'too_many_entries';
  readonly entry: string | null;
  readonly detail: string;
}

export type UnpackResult = { readonly ok: true; readonly files: number; readonly bytes: number } | { readonly ok: false; readonly refusal: UnpackRefusal };

/**
 * Unpacks a gzip'd tar into `root`, an empty directory just made for it.
 * The archive is hostile input: only regular files and directories are
 * written; a name that is absolute, has `..`, or would land outside root is
 * refused, as is any link (symbolic or hard), device, FIFO or socket, a
 * second entry for one path, and anything past the size and count limits.
 * Files are created exclusively (O_EXCL) and never through a link, because
 * nothing but plain directories is ever created here.
 */
export async function unpackTarGz(archive: Buffer, root: string, limits: UnpackLimits): Promise<UnpackResult> {
  const tar = await import('tar-stream');
  const extract = tar.extract();
  const source = Readable.from([archive]).pipe(createGunzip());
  source.on('error', (error) => extract.destroy(error));
  source.pipe(extract);
  const seen = new Set<string>();
  let bytes = 0;
  let files = 0;
  const refuse = (reason: UnpackRefusal['reason'], entry: string | null, detail: string): UnpackResult => {
    extract.destroy();
    return { ok: false, refusal: { reason, entry, detail } };
  };
  try {
    for await (const entry of extract) {
      const header = entry.header;
      const name = header.name;
      if (seen.size >= limits.maxEntries) return refuse('too_many_entries', name, `more than ${limits.maxEntries} entries`);
      if (header.type === 'symlink' || header.type === 'link') {
        return refuse('link', name, `a ${header.type === 'link' ? 'hard' : 'symbolic'} link (to ${JSON.stringify(header.linkname ?? '')}) is never unpacked`);
      }
      if (header.type !== 'file' && header.type !== 'directory') {
        return refuse('special_file', name, `entry type "${header.type}" is not a regular file or directory`);
      }
      const path = safeName(name);
      if (typeof path !== 'string') return refuse(path.reason, name, path.detail);
      const target = join(root, path);
      if (!isInside(root, target) || target === root) return refuse('path_escape', name, 'the entry would land outside the job directory');
      if (seen.has(path)) return refuse('duplicate', name, 'the archive holds this path twice');
      seen.add(path);
      if (header.type === 'directory') {
        mkdirSync(target, { recursive: true, mode: 0o755 });
        entry.resume();
        continue;
      }
      mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
      const fd = openSync(target, 'wx', (header.mode ?? 0o644) & 0o100 ? 0o755 : 0o644);
      try {
        for await (const chunk of entry as AsyncIterable<Buffer>) {
          bytes += chunk.length;
          if (bytes > limits.maxBytes) return refuse('too_large', name, `the unpacked tree is larger than ${limits.maxBytes} bytes`);
          writeSync(fd, chunk);
        }
      } finally {
        closeSync(fd);
      }
      files++;
    }
  } catch (error) {
    return { ok: false, refusal: { reason: 'not_an_archive', entry: null, detail: `not a readable gzip'd tar: ${error instanceof Error ? error.message : String(error)}` } };
  }
  return { ok: true, files, bytes };
}

/** A member name as a clean relative path, or why it is refused. */
function safeName(name: string): string | { reason: 'bad_name' | 'path_escape'; detail: string } {
  if (name === '' || name.includes('\0') || name.includes('\\')) return { reason: 'bad_name', detail: 'empty, or holds a NUL or a backslash' };
  if (name.startsWith('/')) return { reason: 'path_escape', detail: 'an absolute path' };
  const segments = name.split('/').filter((segment, i, all) => !(segment === '' && i === all.length - 1) && segment !== '.');
  if (segments.some((segment) => segment === '..')) return { reason: 'path_escape', detail: 'a ".." segment' };
  if (segments.length === 0 || segments.some((segment) => segment === '')) return { reason: 'bad_name', detail: 'an empty path segment' };
  return segments.join('/');
}
