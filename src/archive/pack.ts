import { createGzip } from 'node:zlib';
import type { Readable } from 'node:stream';

/** One regular file to put in an archive. */
export interface PackFile {
  /** Workspace-relative, forward slashes. */
  readonly path: string;
  readonly bytes: Buffer;
  readonly executable: boolean;
}

/**
 * A gzip'd tar of regular files only: no links, no devices, no owners, a
 * fixed mtime, so the same tree packs to the same bytes.
 */
export async function packTarGz(files: readonly PackFile[]): Promise<Buffer> {
  const tar = await import('tar-stream');
  const pack = tar.pack();
  const gzip = createGzip();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
    gzip.on('end', resolve);
    gzip.on('error', reject);
    pack.on('error', reject);
  });
  (pack as unknown as Readable).pipe(gzip);
  for (const file of [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    await new Promise<void>((resolve, reject) => {
      pack.entry({ name: file.path, size: file.bytes.length, mode: file.executable ? 0o755 : 0o644, mtime: new Date(0), type: 'file' }, file.bytes, (error) =>
        error ? reject(error) : resolve(),
      );
    });
  }
  pack.finalize();
  await done;
  return Buffer.concat(chunks);
}
