import { closeSync, constants, copyFileSync, fstatSync, lstatSync, mkdirSync, openSync, readSync, realpathSync, symlinkSync, writeSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { sha256 } from '../core/digest.js';
import { err, ok, type Result } from '../core/result.js';
import { hashFile } from '../scope/hash-file.js';
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
  let bytes = 0;
  for (const file of files) {
    const [path, expected] = file;
    const source = join(root, path);
    let stat;
    try {
      stat = lstatSync(source);
    } catch (error) {
      return err({ reason: 'changed_during_hash', path, detail: `${(error as NodeJS.ErrnoException).code ?? 'error'} when copied: the file was removed or replaced after it was hashed` });
    }
    if (stat.isSymbolicLink()) {
      links.push(file);
      continue;
    }
    if (!stat.isFile()) return err({ reason: 'changed_during_hash', path, detail: 'no longer a regular file when copied' });
    ensureDir(parentOf(path));
    const copied = copyVerified(source, join(dest, path), expected, stat.size);
    if (!copied.ok) return err({ ...copied.error, path });
    identities.set(path, copied.value);
    bytes += stat.size;
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
      if (copiedTarget[1] !== expected) return err({ reason: 'changed_during_hash', path, detail: `its link now leads to ${target}, which is not the file it was hashed as` });
      symlinkSync(relative(dirname(join(dest, path)), join(dest, target)), join(dest, path));
      identities.set(path, identityOf(lstatSync(join(dest, path), { bigint: true })));
      continue;
    }
    const copied = copyVerified(real, join(dest, path), expected, lstatSync(real).size);
    if (!copied.ok) return err({ ...copied.error, path });
    identities.set(path, copied.value);
    bytes += lstatSync(join(dest, path)).size;
  }
  for (const dir of dirs) ensureDir(dir);
  // Directories last: the writable ones (and what lies below them) change by design; every other one must not.
  const writable = (dir: string) => dirs.some((w) => w === '' || dir === w || dir.startsWith(`${w}/`));
  for (const dir of made) if (!writable(dir)) identities.set(dir, identityOf(lstatSync(join(dest, dir), { bigint: true })));
  return ok({ root: dest, files: files.length, bytes, identities });
}

type Copied = Result<string, Omit<CopyProblem, 'path'>>;

/** One file, copied and checked against its recorded digest; its copy's identity. */
function copyVerified(source: string, target: string, expected: string, size: number): Copied {
  if (size > READ_ONCE_BYTES) {
    // COPYFILE_FICLONE: a reflink where the file system offers one (btrfs, XFS), a plain copy elsewhere. The clone is hashed: what it holds is what counts.
    try {
      copyFileSync(source, target, constants.COPYFILE_FICLONE | constants.COPYFILE_EXCL);
    } catch (error) {
      return err({ reason: 'scope_unreadable', detail: `could not be copied (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
    }
    const hashed = hashFile(target, dirname(target));
    if (!hashed.ok || hashed.sha256 !== expected) return err({ reason: 'changed_during_hash', detail: 'changed between its hash and its copy: the copy does not hash as recorded' });
    return ok(identityOf(lstatSync(target, { bigint: true })));
  }
  let fd: number;
  try {
    fd = openSync(source, OPEN_FLAGS);
  } catch (error) {
    return err({ reason: 'changed_during_hash', detail: `${(error as NodeJS.ErrnoException).code ?? 'error'} when copied: the file was removed or replaced after it was hashed` });
  }
  let data: Buffer;
  let mode: number;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return err({ reason: 'changed_during_hash', detail: 'no longer a regular file when copied' });
    mode = stat.mode & 0o777;
    data = readAll(fd, stat.size);
  } finally {
    closeSync(fd);
  }
  if (sha256(data) !== expected) return err({ reason: 'changed_during_hash', detail: 'changed between its hash and its copy: the bytes read do not hash as recorded' });
  const out = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  try {
    for (let at = 0; at < data.length; ) at += writeSync(out, data, at, data.length - at);
    return ok(identityOf(fstatSync(out, { bigint: true })));
  } finally {
    closeSync(out);
  }
}

/** The whole file; read to the end, not to the size fstat gave (a file that grows is read as it is). */
function readAll(fd: number, size: number): Buffer {
  let buffer = Buffer.allocUnsafe(Math.max(size, 1024));
  let total = 0;
  for (;;) {
    if (total === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]);
    const read = readSync(fd, buffer, total, buffer.length - total, null);
    if (read === 0) break;
    total += read;
  }
  return buffer.subarray(0, total);
}

