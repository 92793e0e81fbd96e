import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { FoundFile, ReleaseFinding } from './finding.js';

/** What a package tarball holds, read without unpacking anything. */
export interface TarballRead {
  readonly sha256: string;
  readonly size: number;
  /** Every regular file by its path under `package/`. */
  readonly files: ReadonlyMap<string, FoundFile>;
  /** Entries that are not what npm installs as a file: links, devices, duplicates, paths outside package/; and an archive that cannot be read. */
  readonly findings: readonly ReleaseFinding[];
}

/** A digest of a whole file, streamed. */
export async function fileDigest(path: string): Promise<FoundFile> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), size };
}

/**
 * A member's path as npm installs it: the first segment (npm pack writes
 * `package/`) is the package directory; null when the name is absolute,
 * climbs with `..`, or is not under `package/`.
 */
export function packagePath(name: string): string | null {
  const segments = name.split('/').filter((s, i, all) => s !== '.' && !(s === '' && i === all.length - 1));
  if (segments[0] !== 'package' || segments.length < 2 || segments.some((s) => s === '..' || s === '')) return null;
  return segments.slice(1).join('/');
}

/**
 * Reads a .tgz as hostile input: its SHA-256, then every member hashed as
 * it streams past (nothing is written to disk). Only regular files count as
 * files; directories are skipped; anything else is a finding.
 */
export async function readTarball(path: string, display: string): Promise<TarballRead> {
  const whole = await fileDigest(path);
  const tar = await import('tar-stream');
  const extract = tar.extract();
  const files = new Map<string, FoundFile>();
  const findings: ReleaseFinding[] = [];
  const finding = (reason: ReleaseFinding['reason'], at: string, detail: string) =>
    findings.push({ where: 'tarball', reason, path: at, expected: null, found: null, detail });
  const flowing = pipeline(createReadStream(path), createGunzip(), extract).catch((error: unknown) =>
    extract.destroy(error instanceof Error ? error : new Error(String(error))),
  );
  try {
    for await (const entry of extract) {
      const { name, type } = entry.header;
      const at = packagePath(name);
      if (type === 'directory') {
        entry.resume();
        continue;
      }
      if (at === null) {
        entry.resume();
        finding('outside_package', name, `the entry ${JSON.stringify(name)} is not a path under package/: npm would not install it where the manifest says`);
        continue;
      }
      if (type !== 'file' && type !== 'contiguous-file') {
        entry.resume();
        finding(
          'not_a_file',
          at,
          `a ${type ?? 'typeless'} entry${entry.header.linkname ? ` (to ${JSON.stringify(entry.header.linkname)})` : ''}, not a regular file`,
        );
        continue;
      }
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of entry as AsyncIterable<Buffer>) {
        hash.update(chunk);
        size += chunk.length;
      }
      if (files.has(at)) finding('duplicate', at, 'the tarball holds this path twice: the copy npm keeps need not be the one that was hashed');
      files.set(at, { sha256: hash.digest('hex'), size });
    }
    await flowing;
  } catch (error) {
    findings.push({
      where: 'tarball',
      reason: 'tarball_unreadable',
      path: display,
      expected: null,
      found: whole.sha256,
      detail: `not a readable gzip'd tar: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  return { sha256: whole.sha256, size: whole.size, files, findings };
}
