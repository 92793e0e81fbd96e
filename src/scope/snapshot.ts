import { lstatSync, readdirSync, realpathSync, statSync, type BigIntStats, type Dirent } from 'node:fs';
import { relative, sep } from 'node:path';
import type { StatCache } from '../cache/stat-cache.js';
import { putStat, sameStat, STAT_WORDS, wallClockNs } from '../cache/stat-key.js';
import type { Sha256 } from '../core/digest.js';
import { isCredentialPath } from './credentials.js';
import { hashFile, type HashOutcome } from './hash-file.js';
import { workersFor } from './hash-pool-policy.js';
import { isInside } from './inside.js';
import type { RefusalReason } from './manifest.js';
import { answerFromRecords, rememberScan, type RememberedScan } from './remembered.js';
import { lstatBatch } from './stat-batch.js';
import type { HashJob } from './hash-pool-protocol.js';
import type { ScanResult } from './scan-types.js';
import { orderListing, type EntryKind, type Listing } from './walk.js';

/** What reading one candidate file gave. */
export type FileOutcome =
  /** `credential`: the file (or a link's target) is credential-shaped, read because an input glob names it; any other group refuses it. */
  | { readonly kind: 'hashed'; readonly sha256: Sha256; readonly size: number; readonly credential?: true }
  | { readonly kind: 'refused'; readonly why: RefusalReason }
  | { readonly kind: 'problem'; readonly reason: 'path_escape' | 'changed_during_hash' | 'scope_unreadable'; readonly detail: string };

export interface SnapshotOptions {
  /** Remembered hashes and listings; absent, everything is read. */
  readonly cache?: StatCache;
  /** A clock reading taken before anything is read: the reference of the racy rule. */
  readonly readStart: Date;
  /** The built hash worker script; absent, hashing stays on this thread. */
  readonly hashWorker?: URL;
  /**
   * Name files relative to the working directory, which the caller keeps at
   * the root while the snapshot is used. Ignored unless it is the root now.
   */
  readonly relative?: boolean;
  /**
   * Never resolve a link: each one in scope is refused as not a regular
   * file, whatever it points to. The verifier service's job trees: a link
   * there was made by a check, and resolving it would be done by the
   * worker, as itself and outside the sandbox (its cwd, its descriptors,
   * any path of the host), with the answer in a signed receipt.
   */
  readonly refuseLinks?: boolean;
}

export type { HashJob } from './hash-pool-protocol.js';

/**
 * One pass over a workspace: every directory listed and every file read at
 * most once, however many checks cover it (status judges all checks against
 * one snapshot; verify takes one before and one after the run).
 *
 * With a stat cache, a directory whose stat is unchanged is not listed again
 * and a file whose stat is unchanged is not read again. What the cache hands
 * out passed the same guarantees when it was read (O_NOFOLLOW, descriptor
 * inside the workspace, regular file, unchanged while read); a hit requires
 * lstat to show the same regular file (device, inode, mode) with the same
 * size and nanosecond timestamps, and the walk that reached it never
 * follows a link.
 */
export class Snapshot {
  /** What this snapshot had to do, for tests and the benchmark: cache hits are work not done. */
  readonly counts = { dirsListed: 0, dirsRemembered: 0, filesHashed: 0, filesRemembered: 0, scopesRemembered: 0, pathsChecked: 0, lstatCalls: 0 };
  // What this snapshot saw, for later scans in it. One scan never asks for
  // the same directory or file twice, so the memos are consulted only once
  // a scan has finished (status makes one scan; init makes several).
  private readonly listings = new LazyMemo<Listing>();
  private readonly outcomes = new LazyMemo<FileOutcome>();
  /** lstat of directories, taken once per snapshot: a probe on the way to a base and the listing share it. */
  private readonly dirStats = new Map<string, DirStat>();
  private scans = 0;
  private readonly readStartNs: bigint;
  private readonly prefix: string;

  constructor(
    readonly root: string,
    private readonly options: SnapshotOptions,
  ) {
    this.readStartNs = wallClockNs(options.readStart);
    this.prefix = options.relative === true && process.cwd() === root ? '' : root.endsWith(sep) ? root : `${root}${sep}`;
  }

  /**
   * The path to give the kernel for a workspace-relative one: relative to
   * the working directory when that is the root (fewer components to
   * resolve), else absolute (cheaper than path.join, which normalises).
   */
  private absolute(path: string): string {
    if (path === '') return this.prefix === '' ? '.' : this.root;
    return this.prefix + path;
  }

  list(dir: string): Listing {
    let listing = this.scans > 0 ? this.listings.get(dir) : undefined;
    if (!listing) {
      listing = this.readListing(dir);
      this.listings.set(dir, listing);
    }
    return listing;
  }

  /**
   * The remembered result of each scope key whose record still holds (see
   * remembered.ts); undefined for the others, which the caller scans.
   */
  remembered(keys: readonly string[]): (RememberedScan | undefined)[] {
    const cache = this.options.cache;
    if (!cache) return keys.map(() => undefined);
    return answerFromRecords(cache, keys, this.root, this.prefix === '', this.counts);
  }

  /** Keeps a scope's result as its record, with the directories it depends on; false when it cannot be kept (something racy). */
  keep(key: string, scan: ScanResult, manifestDigest: Sha256, dirs: readonly string[]): boolean {
    const cache = this.options.cache;
    return cache !== undefined && rememberScan(cache, key, scan, manifestDigest, dirs);
  }

  /**
   * What lstat says a path is, for a directory on the way to a scope's
   * base: undefined when absent (or not reachable: a file on the way). A
   * directory is remembered by its stat, which a record of a scope below it
   * needs unchanged.
   */
  dirStat(path: string): BigIntStats | undefined {
    const found = this.lstatDir(path);
    if (!('stat' in found)) return undefined;
    const cache = this.options.cache;
    if (cache && found.stat.isDirectory()) cache.rememberDirStat(path, found.stat, this.readStartNs);
    return found.stat;
  }

  private lstatDir(path: string): DirStat {
    let found = this.dirStats.get(path);
    if (!found) {
      try {
        const stat = lstatSync(this.absolute(path), { bigint: true, throwIfNoEntry: false });
        found = stat ? { stat } : { code: 'ENOENT' };
      } catch (error) {
        found = { code: (error as NodeJS.ErrnoException).code ?? 'EIO' };
      }
      this.dirStats.set(path, found);
    }
    return found;
  }

  /**
   * The outcome of each candidate, in order; a file already read in this
   * snapshot is not read again. A credential-shaped path is refused unless
   * `readsCredential(i)` says an input glob names candidate i: then it is
   * hashed (never shown) and its outcome says `credential`.
   */
  async read(
    candidates: readonly { readonly path: string; readonly kind: EntryKind }[],
    readsCredential: (i: number) => boolean = () => false,
  ): Promise<FileOutcome[]> {
    const result = new Array<FileOutcome>(candidates.length);
    const jobs: HashJob[] = [];
    const jobAt: number[] = [];
    const reused = this.scans++ > 0;
    candidates.forEach(({ path, kind }, i) => {
      const credential = isCredentialPath(path);
      // A link is judged by its target too, which may be credential-shaped whatever its own name.
      const wanted = (credential || kind === 'symlink') && readsCredential(i);
      let outcome = reused ? this.outcomes.get(path) : undefined;
      // Refused by an earlier scan that did not want it: this one does.
      if (wanted && outcome?.kind === 'refused' && outcome.why === 'credential') outcome = undefined;
      outcome ??= credential && !wanted ? { kind: 'refused', why: 'credential' } : this.lookUp(path, kind, jobs, wanted);
      if (outcome) {
        this.outcomes.set(path, outcome);
        result[i] = outcome;
      } else {
        jobAt.push(i);
      }
    });
    this.counts.filesHashed += jobs.length;
    const worker = this.options.hashWorker;
    const threads = workersFor(jobs, worker);
    // With a cache every directory was lstat'ed before it was listed, so
    // files are read the lean way and the directories checked afterwards.
    const lean = this.options.cache !== undefined;
    const hashed =
      worker && threads > 0
        ? await (await import('./hash-pool.js')).hashInWorkers(jobs, this.root, worker, { threads, lean })
        : jobs.map((job) => hashFile(job.absolute, this.root, job.expected, lean));
    if (lean) this.recheck(jobs, hashed);
    jobs.forEach((job, j) => {
      const read = this.remember(job.path, hashed[j]!);
      const outcome = read.kind === 'hashed' && isCredentialPath(job.path) ? { ...read, credential: true as const } : read;
      this.outcomes.set(job.path, outcome);
      result[jobAt[j]!] = outcome;
    });
    return result;
  }

  /**
   * What the lean read (hash-file.ts) left to check: that no directory on
   * the way to a file read changed while it was read. A directory swapped
   * for a link (to read a file outside the workspace through it) changes the
   * stat of the directory itself or of the one holding it; both were
   * lstat'ed before listing. Files below a directory that moved are read
   * again, the careful way (O_NOFOLLOW, where the descriptor leads, fstat
   * before and after).
   */
  private recheck(jobs: readonly HashJob[], hashed: HashOutcome[]): void {
    const dirs = new Map<string, BigIntStats>();
    for (const job of jobs) {
      for (let end = job.path.lastIndexOf('/'); ; end = job.path.lastIndexOf('/', end - 1)) {
        const dir = end < 0 ? '' : job.path.slice(0, end);
        if (dirs.has(dir)) break;
        const seen = this.dirStats.get(dir);
        if (seen && 'stat' in seen) dirs.set(dir, seen.stat);
        if (end < 0) break;
      }
    }
    if (dirs.size === 0) return;
    const paths = [...dirs.keys()];
    const starts = new Uint32Array(paths.length);
    let at = 0;
    paths.forEach((path, i) => {
      starts[i] = at;
      at += Buffer.byteLength(path) + 1;
    });
    const now = lstatBatch(this.root, Buffer.from(paths.map((path) => `${path}\0`).join('')), starts, this.prefix === '');
    const words = new Int32Array(now.stats.buffer);
    const before = new BigInt64Array(STAT_WORDS);
    const beforeWords = new Int32Array(before.buffer);
    const moved = new Set<string>();
    paths.forEach((path, i) => {
      putStat(before, 0, dirs.get(path)!);
      if (now.errs[i] !== 0 || !sameStat(words, i, beforeWords, 0)) moved.add(path);
    });
    if (moved.size === 0) return;
    jobs.forEach((job, j) => {
      for (let end = job.path.lastIndexOf('/'); ; end = job.path.lastIndexOf('/', end - 1)) {
        if (moved.has(end < 0 ? '' : job.path.slice(0, end))) {
          hashed[j] = hashFile(job.absolute, this.root, job.expected, false);
          return;
        }
        if (end < 0) return;
      }
    });
  }

  /**
   * Answers from what is known without reading the file; otherwise queues it
   * as a job. `credential`: the path is credential-shaped and wanted (an
   * input): the outcome says so.
   */
  private lookUp(path: string, kind: EntryKind, jobs: HashJob[], credential: boolean): FileOutcome | undefined {
    if (kind === 'other') return { kind: 'refused', why: 'not_regular_file' };
    if (kind === 'symlink') return this.readLink(path, credential);
    const absolute = this.absolute(path);
    const cache = this.options.cache;
    const slot = cache?.fileSlot(path);
    if (cache === undefined || slot === undefined) {
      jobs.push({ path, absolute });
      return undefined;
    }
    let stat: BigIntStats | undefined;
    try {
      stat = lstatSync(absolute, { bigint: true, throwIfNoEntry: false });
    } catch {
      stat = undefined;
    }
    if (stat?.isSymbolicLink()) return this.readLink(path, credential);
    if (stat && !stat.isFile()) return { kind: 'refused', why: 'not_regular_file' };
    const sha256 = stat && cache.hashAt(slot, stat);
    if (stat && sha256) {
      this.counts.filesRemembered++;
      return { kind: 'hashed', sha256, size: Number(stat.size), ...(credential && { credential: true as const }) };
    }
    jobs.push(stat ? { path, absolute, expected: stat } : { path, absolute });
    return undefined;
  }

  private remember(path: string, hashed: HashOutcome): FileOutcome {
    const cache = this.options.cache;
    if (!hashed.ok) {
      cache?.forget(path);
      return fromFailure(hashed);
    }
    if (cache && !cache.rememberFile(path, hashed.stat, hashed.sha256, this.readStartNs)) cache.forget(path);
    return { kind: 'hashed', sha256: hashed.sha256, size: hashed.size };
  }

  /** Whether links are refused unread (SnapshotOptions.refuseLinks). */
  get refusesLinks(): boolean {
    return this.options.refuseLinks === true;
  }

  /**
   * A link in scope is hashed by its target, which must be a file inside the
   * workspace. Never cached. A credential-shaped target is refused unless
   * `wanted` (an input names the link). Refused unread where links are
   * (SnapshotOptions.refuseLinks: the verifier service, which never resolves a
   * link a check made).
   */
  private readLink(path: string, wanted: boolean): FileOutcome {
    if (this.options.refuseLinks === true) return { kind: 'refused', why: 'not_regular_file' };
    const link = this.absolute(path);
    let real: string;
    try {
      real = realpathSync(link);
    } catch {
      return { kind: 'refused', why: 'dangling_symlink' };
    }
    if (!isInside(this.root, real)) {
      return { kind: 'problem', reason: 'path_escape', detail: `symlink resolves outside the workspace, to ${real}` };
    }
    const credential = isCredentialPath(path) || isCredentialPath(relative(this.root, real).split(sep).join('/'));
    if (credential && !wanted) return { kind: 'refused', why: 'credential' };
    const stat = statSync(real, { throwIfNoEntry: false });
    if (!stat) return { kind: 'refused', why: 'dangling_symlink' };
    if (stat.isDirectory()) return { kind: 'refused', why: 'symlink_to_directory' };
    this.counts.filesHashed++;
    const hashed = hashFile(real, this.root);
    return hashed.ok ? { kind: 'hashed', sha256: hashed.sha256, size: hashed.size, ...(credential && { credential: true as const }) } : fromFailure(hashed);
  }

  private readListing(dir: string): Listing {
    const absolute = this.absolute(dir);
    const cache = this.options.cache;
    let stat: BigIntStats | undefined;
    if (cache) {
      // Stat before listing: a change after this moment moves the stat the
      // listing is remembered under.
      const found = this.lstatDir(dir);
      if (!('stat' in found)) return found.code === 'ENOENT' || found.code === 'ENOTDIR' ? { kind: 'absent' } : { kind: 'unreadable', code: found.code };
      stat = found.stat;
      // The walk reached this path as a directory; a link here now is a swap, not something to follow.
      if (stat.isSymbolicLink()) return { kind: 'replaced' };
      if (!stat.isDirectory()) return { kind: 'absent' };
      const remembered = cache.listing(dir, stat);
      if (remembered) {
        this.counts.dirsRemembered++;
        return { kind: 'ok', ...remembered };
      }
    }
    this.counts.dirsListed++;
    let dirents: Dirent[];
    try {
      dirents = readdirSync(absolute, { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
      // A base that does not exist (or is a file) simply contributes nothing.
      return code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'absent' } : { kind: 'unreadable', code };
    }
    let kinds = '';
    for (const dirent of dirents) kinds += kindLetter(dirent);
    const listing = orderListing(
      dirents.map((dirent) => dirent.name),
      kinds,
    );
    if (cache && stat && !cache.rememberDir(dir, stat, listing, this.readStartNs)) cache.forget(dir);
    return { kind: 'ok', ...listing };
  }
}

type DirStat = { readonly stat: BigIntStats } | { readonly code: string };

/** A string-keyed memo that costs two array pushes per entry until the first lookup builds its map. */
class LazyMemo<V> {
  private readonly keys: string[] = [];
  private readonly values: V[] = [];
  private map: Map<string, V> | undefined;

  get(key: string): V | undefined {
    if (!this.map) {
      this.map = new Map();
      this.keys.forEach((k, i) => this.map!.set(k, this.values[i]!));
    }
    return this.map.get(key);
  }

  set(key: string, value: V): void {
    if (this.map) this.map.set(key, value);
    else {
      this.keys.push(key);
      this.values.push(value);
    }
  }
}

function kindLetter(dirent: Dirent): string {
  return dirent.isDirectory() ? 'd' : dirent.isFile() ? 'f' : dirent.isSymbolicLink() ? 'l' : 'o';
}

function fromFailure(hashed: Extract<HashOutcome, { ok: false }>): FileOutcome {
  if (hashed.why === 'not_regular_file') return { kind: 'refused', why: 'not_regular_file' };
  return { kind: 'problem', reason: hashed.why === 'unreadable' ? 'scope_unreadable' : 'changed_during_hash', detail: hashed.detail };
}
