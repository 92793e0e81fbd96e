import { nodeCrypto } from '../core/builtins.js';
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync } from 'node:fs';
import type { StatIdentity } from '../cache/stat-key.js';
import type { Sha256 } from '../core/digest.js';

export type HashFailure =
  /** Not a regular file when opened (a FIFO, socket or device swapped in). */
  | 'not_regular_file'
  /** Replaced, grown, shrunk or touched while being read, or gone. */
  | 'changed_during_hash'
  /** Could not be opened or read (permissions, I/O error). */
  | 'unreadable';

export type HashOutcome =
  | { readonly ok: true; readonly sha256: Sha256; readonly size: number; readonly stat: StatIdentity }
  | { readonly ok: false; readonly why: HashFailure; readonly detail: string };

/** The identity a walk saw, to detect a file swapped between walk and open. */
export interface Identity {
  readonly dev: bigint | number;
  readonly ino: bigint | number;
}

const CHUNK = 1 << 20;
// O_NOFOLLOW: a path swapped for a symlink is not followed. O_NONBLOCK: a path
// swapped for a FIFO does not hang the open waiting for a writer.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

let sharedBuffer: Buffer | undefined;
let procFd: boolean | undefined;

/**
 * O_NOFOLLOW guards only the last path component. On Linux the kernel says
 * where an open descriptor really points; if a parent directory was swapped
 * for a symlink after the walk, the file opened is outside `within`.
 */
function openedWithin(fd: number, within: string): boolean {
  if (procFd === false) return true;
  try {
    const target = readlinkSync(`/proc/self/fd/${fd}`);
    procFd = true;
    return target.startsWith(`${within}/`);
  } catch {
    procFd = false;
    return true;
  }
}

/**
 * Hashes one file by descriptor, refusing anything that is not the regular
 * file the walk saw, and anything that changed while it was read.
 *
 * `lean` is the sequence sha256sum makes (open with O_NOFOLLOW, fstat, read
 * to the end, close), for a caller that checks the rest itself afterwards
 * (Snapshot: every directory on the way is lstat'ed again once the files are
 * read, and a file below one that moved is read again without `lean`). It
 * skips the two per-file checks that cost the most: asking /proc where the
 * descriptor leads, and a second fstat. A file whose length changed while
 * it was read is still refused; one edited in place without changing length
 * has a ctime past the stat it is remembered by, so it is read again on the
 * next pass.
 */
export function hashFile(absolutePath: string, within: string, expected?: Identity, lean = false): HashOutcome {
  let fd: number;
  try {
    fd = openSync(absolutePath, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP' || code === 'ENOTDIR') {
      return { ok: false, why: 'changed_during_hash', detail: `${code} on open: the file was removed or replaced` };
    }
    return { ok: false, why: 'unreadable', detail: `${code ?? String(error)} on open` };
  }
  try {
    const before = fstatSync(fd, { bigint: true });
    if (!before.isFile()) return { ok: false, why: 'not_regular_file', detail: 'not a regular file when opened' };
    if (!lean && !openedWithin(fd, within)) {
      return { ok: false, why: 'changed_during_hash', detail: 'a directory on its path was replaced by a link leading elsewhere' };
    }
    if (expected && (BigInt(expected.dev) !== before.dev || BigInt(expected.ino) !== before.ino)) {
      return { ok: false, why: 'changed_during_hash', detail: 'replaced by another file between listing and reading' };
    }
    const hash = nodeCrypto().createHash('sha256');
    const buffer = (sharedBuffer ??= Buffer.allocUnsafe(CHUNK));
    // Read to the end, not to the size fstat gave: a file whose size lies
    // (procfs, some FUSE mounts) must not hash as its first bytes.
    let total = 0;
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK, null);
      if (read === 0) break;
      hash.update(read === CHUNK ? buffer : buffer.subarray(0, read));
      total += read;
    }
    if (lean) {
      if (BigInt(total) !== before.size) return { ok: false, why: 'changed_during_hash', detail: 'modified while it was being read' };
      return { ok: true, sha256: hash.digest('hex') as Sha256, size: total, stat: before };
    }
    const after = fstatSync(fd, { bigint: true });
    if (BigInt(total) !== before.size || after.size !== before.size || after.mtimeNs !== before.mtimeNs || after.ctimeNs !== before.ctimeNs) {
      return { ok: false, why: 'changed_during_hash', detail: 'modified while it was being read' };
    }
    return { ok: true, sha256: hash.digest('hex') as Sha256, size: total, stat: after };
  } catch (error) {
    return { ok: false, why: 'unreadable', detail: `${(error as NodeJS.ErrnoException).code ?? String(error)} while reading` };
  } finally {
    closeSync(fd);
  }
}
