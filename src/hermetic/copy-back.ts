import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readlinkSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { globMatcher } from '../scope/glob-dirs.js';
import { isInside } from '../scope/inside.js';
import type { CheckDef } from '../spec/model.js';

/** What came back from a hermetic run's writable folders. */
export interface CopiedBack {
  /** Workspace-relative paths written into the workspace. */
  readonly copied: readonly string[];
  /** Artifact globs (or the file_exists path) that no file of the run matched. */
  readonly missing: readonly string[];
  /** A file that could not be put in the workspace without leaving it (a link on its way), with why. */
  readonly refused: { readonly path: string; readonly detail: string } | null;
}

const CHUNK = 1 << 20;

/**
 * Brings a hermetic run's outputs into the workspace, where they are hashed
 * as any check's artifacts are: every regular file in the copy's writable
 * folders that an artifact glob (or the file_exists path) matches and that
 * is not one of the declared files copied in. A link or special file the
 * run made is never followed or copied. Written without following links in
 * the workspace either: a folder on the way that is a link is refused (a
 * check's output is never written outside the workspace), whatever is
 * where the file goes (a link, a file hard-linked elsewhere) is removed
 * first, and the descriptor written is checked to be inside the workspace. An artifact glob that no file of the run matches is
 * missing, even if an older file in the workspace would match it: the
 * artifact must be this run's.
 */
export function copyBack(
  copyRoot: string,
  root: string,
  check: Pick<CheckDef, 'artifacts' | 'expect'>,
  inputs: ReadonlySet<string>,
  dirs: readonly string[],
): CopiedBack {
  const wanted = check.artifacts.map((glob) => ({ glob, match: globMatcher(glob) }));
  if (check.expect.kind === 'file_exists') {
    const path = check.expect.path;
    wanted.push({ glob: path, match: (candidate) => candidate === path });
  }
  const matched = new Set<string>();
  const copied: string[] = [];
  for (const path of dirs.flatMap((dir) => filesBelow(copyRoot, dir))) {
    const globs = wanted.filter((w) => w.match(path));
    if (globs.length === 0) continue;
    for (const w of globs) matched.add(w.glob);
    if (inputs.has(path)) continue;
    const refused = place(join(copyRoot, path), root, path);
    if (refused !== undefined) return { copied, missing: [], refused: { path, detail: refused } };
    copied.push(path);
  }
  return { copied, missing: wanted.filter((w) => !matched.has(w.glob)).map((w) => w.glob), refused: null };
}

/** Regular files below a folder of the copy (workspace-relative paths), links never followed. */
function filesBelow(copyRoot: string, dir: string): string[] {
  const found: string[] = [];
  const visit = (rel: string) => {
    let entries;
    try {
      entries = readdirSync(rel === '' ? copyRoot : join(copyRoot, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile()) found.push(path);
    }
  };
  visit(dir);
  return found.sort();
}

/** Writes one output into the workspace; why not, or undefined when written. */
function place(source: string, root: string, path: string): string | undefined {
  const parts = path.split('/');
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    if (!stat) mkdirSync(dir);
    else if (!stat.isDirectory())
      return `${dir} is ${stat.isSymbolicLink() ? 'a symlink' : 'not a directory'} in the workspace: the run's output is not written through it`;
  }
  const target = join(root, path);
  const existing = lstatSync(target, { throwIfNoEntry: false });
  if (existing?.isDirectory()) return `${target} is a directory in the workspace`;
  // Whatever is there is replaced, never written through: a link, a FIFO, or a file hard-linked to one outside.
  if (existing) unlinkSync(target);
  const input = openSync(source, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const mode = fstatSync(input).mode & 0o777;
    const output = openSync(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
    try {
      if (!fstatSync(output).isFile() || !writtenWithin(output, root)) return `${target} led outside the workspace when opened`;
      const buffer = Buffer.allocUnsafe(CHUNK);
      for (let read; (read = readSync(input, buffer, 0, CHUNK, null)) > 0;) {
        for (let at = 0; at < read;) at += writeSync(output, buffer, at, read - at);
      }
    } finally {
      closeSync(output);
    }
  } finally {
    closeSync(input);
  }
  return undefined;
}

/** Where the kernel says an open descriptor leads (Linux); true where it cannot say. */
function writtenWithin(fd: number, root: string): boolean {
  try {
    return isInside(root, readlinkSync(`/proc/self/fd/${fd}`));
  } catch {
    return true;
  }
}
