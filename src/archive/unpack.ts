import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { isInside } from '../scope/scan.js';
import { TarFraming } from './tar-framing.js';

export interface UnpackLimits {
  /** Bytes of the decompressed archive (headers and padding included), so also of all file content together. */
  readonly maxBytes: number;
  readonly maxEntries: number;
  /** Milliseconds the whole unpacking may take (reading the source included). */
  readonly maxMs: number;
}

/** Why an archive was refused; `entry` names the offending member when there is one. */
export interface UnpackRefusal {
  readonly reason:
    'not_an_archive' | 'path_escape' | 'bad_name' | 'link' | 'special_file' | 'duplicate' | 'reserved_name' | 'too_large' | 'too_many_entries' | 'too_slow';
  readonly entry: string | null;
  readonly detail: string;
}

export type UnpackResult = { readonly ok: true; readonly files: number; readonly bytes: number } | { readonly ok: false; readonly refusal: UnpackRefusal };

/**
 * Unpacks a gzip'd tar, streamed from `source`, into `root`, an empty
 * directory just made for it. The archive is hostile input: only regular
 * files and directories are written; a name that is absolute, has `..`,
 * would land outside root, or holds a `.git` (anywhere) or a root `.vouch`
 * is refused, as is any link (symbolic or hard), device, FIFO or socket, a
 * second entry for one path, and anything past the limits: decompressed
 * bytes (counted as they leave gunzip, headers and padding included),
 * entries and time. Reading stops at the archive's end marker, whatever
 * follows it. Files are created exclusively (O_EXCL) and never through a
 * link, because nothing but plain directories is ever created here.
 */
export async function unpackTarGz(source: Buffer | Readable, root: string, limits: UnpackLimits): Promise<UnpackResult> {
  const tar = await import('tar-stream');
  const extract = tar.extract();
  let stopped: UnpackRefusal | undefined;
  const stop = (refusal: UnpackRefusal) => {
    stopped ??= refusal;
    extract.destroy(new Error(refusal.detail));
  };
  const timer = setTimeout(() => stop({ reason: 'too_slow', entry: null, detail: `unpacking took longer than ${limits.maxMs / 1000} s` }), limits.maxMs);
  const framing = new TarFraming();
  const flowing = pipeline(
    Buffer.isBuffer(source) ? Readable.from([source]) : source,
    createGunzip(),
    async function* (inflated: AsyncIterable<Buffer>) {
      for await (const chunk of inflated) {
        const { data, ended } = framing.take(chunk);
        if (framing.seen > limits.maxBytes) {
          stop({ reason: 'too_large', entry: null, detail: `the archive inflates to more than ${limits.maxBytes} bytes` });
          return;
        }
        yield data;
        if (ended) return;
      }
    },
    extract,
  ).catch((error: unknown) => {
    // The entry loop below reports it: extract is destroyed with it.
    extract.destroy(error instanceof Error ? error : new Error(String(error)));
  });

  const seen = new Set<string>();
  let bytes = 0;
  let files = 0;
  const refuse = (reason: UnpackRefusal['reason'], entry: string | null, detail: string): UnpackResult => {
    stop({ reason, entry, detail });
    return { ok: false, refusal: stopped! };
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
    await flowing;
    if (stopped) return { ok: false, refusal: stopped };
  } catch (error) {
    if (stopped) return { ok: false, refusal: stopped };
    return {
      ok: false,
      refusal: { reason: 'not_an_archive', entry: null, detail: `not a readable gzip'd tar: ${error instanceof Error ? error.message : String(error)}` },
    };
  } finally {
    clearTimeout(timer);
    await flowing;
  }
  return { ok: true, files, bytes };
}

/** A member name as a clean relative path, or why it is refused. */
function safeName(name: string): string | { reason: 'bad_name' | 'path_escape' | 'reserved_name'; detail: string } {
  if (name === '' || name.includes('\0') || name.includes('\\')) return { reason: 'bad_name', detail: 'empty, or holds a NUL or a backslash' };
  if (name.startsWith('/')) return { reason: 'path_escape', detail: 'an absolute path' };
  const segments = name.split('/').filter((segment, i, all) => !(segment === '' && i === all.length - 1) && segment !== '.');
  if (segments.some((segment) => segment === '..')) return { reason: 'path_escape', detail: 'a ".." segment' };
  if (segments.length === 0 || segments.some((segment) => segment === '')) return { reason: 'bad_name', detail: 'an empty path segment' };
  // git would read a .git directory (its config can run commands); .vouch is vouch's own state, never sent.
  if (segments.some((segment) => segment.toLowerCase() === '.git'))
    return { reason: 'reserved_name', detail: 'a .git entry: git metadata is never accepted in an upload' };
  if (segments[0]!.toLowerCase() === '.vouch') return { reason: 'reserved_name', detail: "a .vouch entry: vouch's state is never accepted in an upload" };
  return segments.join('/');
}
