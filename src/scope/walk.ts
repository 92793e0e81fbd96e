import type { DirEntry } from '../cache/stat-cache.js';

/** What a directory listing says an entry is, before any stat. */
export type EntryKind = 'file' | 'symlink' | 'other';

export interface WalkEntry<T> {
  /** Workspace-relative, forward slashes. */
  readonly path: string;
  readonly kind: EntryKind;
  /** What `accept` said about it. */
  readonly tag: T;
}

/** One directory's entries, or why there are none. */
export type Listing =
  | { readonly kind: 'ok'; readonly entries: readonly DirEntry[] }
  /** Does not exist (or is a file): contributes nothing. */
  | { readonly kind: 'absent' }
  | { readonly kind: 'unreadable'; readonly code: string }
  /** Listed as a directory by its parent, but a link or file when reached. */
  | { readonly kind: 'replaced' };

export interface WalkOptions<T> {
  /** Relative directories to start from ('' is the root); nested ones are walked once. */
  readonly bases: readonly string[];
  /** True to walk into a directory: something in scope could be below it. */
  readonly descend: (relativeDir: string, name: string) => boolean;
  /** A tag to keep a non-directory entry, undefined to leave it out. */
  readonly accept: (relativePath: string) => T | undefined;
  /** Lists one directory (entries sorted by `entryOrder`). */
  readonly list: (relativeDir: string) => Listing;
}

export interface WalkResult<T> {
  /** In path order (the order manifests are sorted in). */
  readonly entries: WalkEntry<T>[];
  /** Directories that exist but could not be listed. */
  readonly unreadable: { readonly path: string; readonly code: string }[];
  /** Directories that turned into something else while being walked. */
  readonly replaced: string[];
}

/**
 * Lists entries under the given bases, entering only directories where
 * something in scope could be. Symbolic links are reported as entries and
 * never descended into, so a walk cannot leave the workspace or loop.
 */
export function walk<T>(options: WalkOptions<T>): WalkResult<T> {
  const result: WalkResult<T> = { entries: [], unreadable: [], replaced: [] };
  const visit = (dir: string): void => {
    const listing = options.list(dir);
    switch (listing.kind) {
      case 'absent':
        return;
      case 'unreadable':
        result.unreadable.push({ path: dir, code: listing.code });
        return;
      case 'replaced':
        result.replaced.push(dir);
        return;
      case 'ok':
        break;
    }
    for (const entry of listing.entries) {
      const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.kind === 'dir') {
        if (options.descend(path, entry.name)) visit(path);
      } else {
        const tag = options.accept(path);
        if (tag !== undefined) result.entries.push({ path, kind: entry.kind, tag });
      }
    }
  };
  for (const base of minimalBases(options.bases)) visit(base);
  return result;
}

/**
 * Sibling order that makes a depth-first walk come out in path order:
 * "a/x" sorts after "a-b" because "/" follows "-", so a directory sorts as
 * its name followed by "/".
 */
export function entryOrder(a: DirEntry, b: DirEntry): number {
  const left = a.kind === 'dir' ? `${a.name}/` : a.name;
  const right = b.kind === 'dir' ? `${b.name}/` : b.name;
  return left < right ? -1 : left > right ? 1 : 0;
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
