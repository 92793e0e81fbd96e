import { closeSync, constants, copyFileSync, fstatSync, lstatSync, mkdirSync, openSync, readSync, realpathSync, symlinkSync, writeSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { sha256 } from '../core/digest.js';
import { err, ok, type Result } from '../core/result.js';
import { STAT_WORDS } from '../cache/stat-key.js';
import { hashFile } from '../scope/hash-file.js';
import { lstatBatch } from '../scope/stat-batch.js';
import { isInside } from '../scope/inside.js';
import type { ManifestFile } from '../scope/manifest.js';
import { identityOf } from './identity.js';
import { parentOf } from './writable.js';

/** The private copy of a check's declared files that its hermetic run sees. */
export interface PrivateCopy {
  /** Absolute directory on the host holding the copy (shown inside the sandbox at the workspace root's path). */
  readonly root: string;
  readonly files: number;
  readonly bytes: number;
  /**
   * The identity (inode, size, mtime, ctime) of every file, link and
   * read-only directory made, by copy-relative path ('' is the root): a
   * file written, replaced or renamed, or an entry added to or removed
   * from a read-only directory, changes one of them, even if it was put
   * back before the run ended.
   */
  readonly identities: ReadonlyMap<string, string>;
}

/** Why a private copy could not be made: the workspace no longer holds what was fingerprinted. */
export interface CopyProblem {
  readonly reason: 'changed_during_hash' | 'path_escape' | 'scope_unreadable';
  readonly path: string;
  readonly detail: string;
}

/** Files up to this size are read once, hashed in memory and written; larger ones are cloned (reflink where the file system has it) and the clone hashed. */
const READ_ONCE_BYTES = 1 << 20;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Copies the files of a check's before-manifest from the workspace `root`
 * into `dest` (an empty directory of vouch's own), each verified against
 * the SHA-256 the manifest recorded: what the check will read are the
 * bytes that were fingerprinted, whatever happens in the workspace from now
 * on. A file that no longer hashes as recorded stops the copy
 * (changed_during_hash). A symbolic link the scan hashed by its target is
 * made a link again when the target is copied too (so a tool that resolves
 * it, such as node_modules/.bin, finds its neighbours), else a file with
 * the target's recorded bytes; a link leading outside the workspace is
 * never followed (the scan refused it already; path_escape if it moved
 * since). `writable` directories (the artifacts' folders) and the check's
 * cwd are created too.
 */
export function makePrivateCopy(root: string, files: readonly ManifestFile[], dest: string, dirs: readonly string[]): Result<PrivateCopy, CopyProblem> {
  const identities = new Map<string, string>();
  mkdirSync(dest, { mode: 0o755 });
  const made = new Set<string>(['']);
  const ensureDir = (dir: string) => {
    if (made.has(dir)) return;
    ensureDir(parentOf(dir));
    mkdirSync(join(dest, dir));
    made.add(dir);
  };
  const recorded = new Map(files.map((file) => [file[0], file]));
  const links: ManifestFile[] = [];
  // One lstat per file, in C where the addon is built (stat-batch.ts): type, permissions and size, for hundreds of files at once.
  const stats = lstatAll(root, files);
  let bytes = 0;
  for (const [i, file] of files.entries()) {
    const [path, expected] = file;
    const { errno, mode, size } = stats(i);
    if (errno !== 0) return err({ reason: 'changed_during_hash', path, detail: 'removed or replaced after it was hashed' });
    if ((mode & S_IFMT) === S_IFLNK) {
      links.push(file);
      continue;
    }
    if ((mode & S_IFMT) !== S_IFREG) return err({ reason: 'changed_during_hash', path, detail: 'no longer a regular file when copied' });
    ensureDir(parentOf(path));
    const copied = copyVerified(join(root, path), join(dest, path), expected, size, mode & 0o777);
    if (!copied.ok) return err({ ...copied.error, path });
    identities.set(path, copied.value);
    bytes += size;
  }
  for (const file of links) {
    const [path, expected] = file;
    let real: string;
    try {
      real = realpathSync(join(root, path));
    } catch {
      return err({ reason: 'changed_during_hash', path, detail: 'its link no longer leads to a file' });
    }
    if (!isInside(root, real)) return err({ reason: 'path_escape', path, detail: `symlink now resolves outside the workspace, to ${real}` });
    const target = relative(root, real).split(sep).join('/');
    const copiedTarget = recorded.get(target);
    ensureDir(parentOf(path));
    if (copiedTarget && identities.has(target)) {
      // The target's copy was verified above; the link must have been hashed as that same file.
      if (copiedTarget[1] !== expected)
        return err({ reason: 'changed_during_hash', path, detail: `its link now leads to ${target}, which is not the file it was hashed as` });
      symlinkSync(relative(dirname(join(dest, path)), join(dest, target)), join(dest, path));
      identities.set(path, identityOf(lstatSync(join(dest, path), { bigint: true })));
      continue;
    }
    const stat = lstatSync(real);
    const copied = copyVerified(real, join(dest, path), expected, stat.size, stat.mode & 0o777);
    if (!copied.ok) return err({ ...copied.error, path });
    identities.set(path, copied.value);
    bytes += stat.size;
  }
  for (const dir of dirs) ensureDir(dir);
  // Directories last: the writable ones (and what lies below them) change by design; every other one must not.
  const writable = (dir: string) => dirs.some((w) => w === '' || dir === w || dir.startsWith(`${w}/`));
  for (const dir of made) if (!writable(dir)) identities.set(dir, identityOf(lstatSync(join(dest, dir), { bigint: true })));
  return ok({ root: dest, files: files.length, bytes, identities });
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

/** lstat of every file of the manifest, in one batch; by index: errno (0 when read), mode and size. */
function lstatAll(root: string, files: readonly ManifestFile[]): (i: number) => { errno: number; mode: number; size: number } {
  const starts = new Uint32Array(files.length);
  let at = 0;
  files.forEach((file, i) => {
    starts[i] = at;
    at += Buffer.byteLength(file[0]) + 1;
  });
  const batch = lstatBatch(root, Buffer.from(files.map((file) => `${file[0]}\0`).join('')), starts, false);
  return (i) => ({ errno: batch.errs[i]!, mode: Number(batch.stats[i * STAT_WORDS + 2]), size: Number(batch.stats[i * STAT_WORDS + 3]) });
}

type Copied = Result<string, Omit<CopyProblem, 'path'>>;

let shared: Buffer | undefined;

/** One file, copied and checked against its recorded digest; its copy's identity. */
function copyVerified(source: string, target: string, expected: string, size: number, mode: number): Copied {
  if (size > READ_ONCE_BYTES) {
    // COPYFILE_FICLONE: a reflink where the file system offers one (btrfs, XFS), a plain copy elsewhere. The clone is hashed: what it holds is what counts.
    try {
      copyFileSync(source, target, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL);
    } catch (error) {
      return err({ reason: 'scope_unreadable', detail: `could not be copied (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
    }
    const hashed = hashFile(target, dirname(target));
    if (!hashed.ok || hashed.sha256 !== expected)
      return err({ reason: 'changed_during_hash', detail: 'changed between its hash and its copy: the copy does not hash as recorded' });
    return ok(identityOf(lstatSync(target, { bigint: true })));
  }
  let fd: number;
  try {
    fd = openSync(source, OPEN_FLAGS);
  } catch (error) {
    return err({
      reason: 'changed_during_hash',
      detail: `${(error as NodeJS.ErrnoException).code ?? 'error'} when copied: the file was removed or replaced after it was hashed`,
    });
  }
  // Read into one buffer reused for every file: a byte past the read-once size means the file grew, which the hash below refuses anyway.
  const buffer = (shared ??= Buffer.allocUnsafe(READ_ONCE_BYTES + 1));
  let length = 0;
  try {
    for (let read; length < buffer.length && (read = readSync(fd, buffer, length, buffer.length - length, null)) > 0;) length += read;
  } catch (error) {
    return err({ reason: 'scope_unreadable', detail: `${(error as NodeJS.ErrnoException).code ?? 'error'} while copied` });
  } finally {
    closeSync(fd);
  }
  const data = buffer.subarray(0, length);
  if (sha256(data) !== expected)
    return err({ reason: 'changed_during_hash', detail: 'changed between its hash and its copy: the bytes read do not hash as recorded' });
  const out = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    for (let at = 0; at < data.length;) at += writeSync(out, data, at, data.length - at);
    return ok(identityOf(fstatSync(out, { bigint: true })));
  } finally {
    closeSync(out);
  }
}
