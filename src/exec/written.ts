import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { sha256, type Sha256 } from '../core/digest.js';
import type { WritablePath } from './view.js';

/** Entries walked at most, over every writable path; past it the run says "not fingerprinted" rather than guess. */
export const MAX_ENTRIES = 200_000;

/** What stands at each path of the writable paths: size, mtime, ctime (which no process can set back) and inode. */
export type TreeStamp = ReadonlyMap<string, string>;

/** One path the command wrote: its digest after the run (a link: of its target text), or null when it is gone. */
export interface FileWritten {
  /** Workspace-relative; `~/...` under HOME; absolute elsewhere. */
  readonly path: string;
  readonly sha256: Sha256 | null;
}

/** Stamps every entry under the writable paths; null when there are more than MAX_ENTRIES. */
export function stampTree(writable: readonly WritablePath[]): TreeStamp | null {
  const stamps = new Map<string, string>();
  const walk = (path: string): boolean => {
    let stat;
    try {
      stat = lstatSync(path, { bigint: true });
    } catch {
      return true;
    }
    stamps.set(path, `${stat.mode}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}:${stat.ino}`);
    if (stamps.size > MAX_ENTRIES) return false;
    if (!stat.isDirectory()) return true;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return true;
    }
    return names.every((name) => walk(join(path, name)));
  };
  for (const w of writable) if (!walk(w.path)) return null;
  return stamps;
}

/** The files whose stamp moved, appeared or went away between the two walks, sorted; directories are not files written. */
export function filesWritten(before: TreeStamp, after: TreeStamp, root: string, home: string | undefined): FileWritten[] {
  const written: FileWritten[] = [];
  for (const [path, stamp] of after) {
    if (before.get(path) === stamp) continue;
    const digest = contentOf(path);
    if (digest !== undefined) written.push({ path: display(path, root, home), sha256: digest });
  }
  for (const path of before.keys()) if (!after.has(path)) written.push({ path: display(path, root, home), sha256: null });
  return written.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A file's digest, a link's target's text digest; undefined for a directory (its entries speak for it). */
function contentOf(path: string): Sha256 | null | undefined {
  try {
    const stat = lstatSync(path);
    if (stat.isDirectory()) return undefined;
    if (stat.isSymbolicLink()) return sha256(readlinkSync(path));
    return stat.isFile() ? sha256(readFileSync(path)) : null;
  } catch {
    return null;
  }
}

function display(path: string, root: string, home: string | undefined): string {
  if (path === root || path.startsWith(`${root}${sep}`)) return relative(root, path).split(sep).join('/') || '.';
  if (home !== undefined && path.startsWith(`${home}${sep}`)) return `~/${relative(home, path).split(sep).join('/')}`;
  return path;
}
