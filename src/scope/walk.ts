import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

/** What a directory listing says an entry is, before any stat. */
export type EntryKind = 'file' | 'symlink' | 'other';

export interface WalkEntry {
  /** Workspace-relative, forward slashes. */
  readonly path: string;
  readonly kind: EntryKind;
}

export interface WalkOptions {
  /** Relative directories to start from ('' is the root); nested ones are walked once. */
  readonly bases: readonly string[];
  /** True to skip a directory and everything under it. */
  readonly prune: (relativeDir: string, name: string) => boolean;
  /** True to keep a non-directory entry. */
  readonly accept: (relativePath: string) => boolean;
}

export interface WalkResult {
  readonly entries: WalkEntry[];
  /** Directories that exist but could not be listed. */
  readonly unreadable: { readonly path: string; readonly code: string }[];
}

/**
 * Lists entries under the given bases with synchronous calls (for many small
 * directories they are several times faster than the async API). Symbolic
 * links are reported as entries and never descended into, so a walk cannot
 * leave the workspace or loop.
 */
export function walk(root: string, options: WalkOptions): WalkResult {
  const result: WalkResult = { entries: [], unreadable: [] };
  const stack = minimalBases(options.bases);
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let dirents: Dirent[];
    try {
      dirents = readdirSync(dir === '' ? root : join(root, dir), { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
      // A base that does not exist (or is a file) simply contributes nothing.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') result.unreadable.push({ path: dir, code });
      continue;
    }
    for (const dirent of dirents) {
      const path = dir === '' ? dirent.name : `${dir}/${dirent.name}`;
      if (dirent.isDirectory()) {
        if (!options.prune(path, dirent.name)) stack.push(path);
      } else if (options.accept(path)) {
        result.entries.push({ path, kind: dirent.isFile() ? 'file' : dirent.isSymbolicLink() ? 'symlink' : 'other' });
      }
    }
  }
  return result;
}

/** Drops bases inside other bases: ['src', 'src/a', ''] -> ['']. */
export function minimalBases(bases: readonly string[]): string[] {
  const unique = [...new Set(bases)].sort();
  const kept: string[] = [];
  for (const base of unique) {
    if (kept.some((outer) => outer === '' || base === outer || base.startsWith(`${outer}/`))) continue;
    kept.push(base);
  }
  return kept;
}
