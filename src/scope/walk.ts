import { DIR, FILE, LINK, type DirListing } from '../cache/dir-listing.js';

/** What a directory listing says an entry is, before any stat. */
export type EntryKind = 'file' | 'symlink' | 'other';

/** One directory's entries, or why there are none. */
export type Listing =
  | ({ readonly kind: 'ok' } & DirListing)
  /** Does not exist (or is a file): contributes nothing. */
  | { readonly kind: 'absent' }
  | { readonly kind: 'unreadable'; readonly code: string }
  /** Listed as a directory by its parent, but a link or file when reached. */
  | { readonly kind: 'replaced' };

export interface WalkOptions<C> {
  /** Directories to start from ('' is the root), none inside another, each with its context. */
  readonly starts: readonly { readonly dir: string; readonly context: C }[];
  /** The context to walk a subdirectory with, or undefined to skip it: nothing in scope can be below. */
  readonly enter: (relativeDir: string, name: string, parent: C) => C | undefined;
  /** Called for every non-directory entry of a directory walked with `context`. */
  readonly visit: (relativePath: string, kind: EntryKind, context: C) => void;
  /** Lists one directory (entries sorted by `entryOrder`). */
  readonly list: (relativeDir: string) => Listing;
}

export interface WalkResult<C> {
  /** Directories that exist but could not be listed. */
  readonly unreadable: { readonly path: string; readonly code: string; readonly context: C }[];
  /** Directories that turned into something else while being walked. */
  readonly replaced: { readonly path: string; readonly context: C }[];
}

/**
 * Visits entries under the start directories in path order (the order
 * manifests are sorted in), entering only directories where something in
 * scope could be. Symbolic links are reported as entries
 * and never descended into, so a walk cannot leave the workspace or loop.
 * A context travels down the tree (which scopes are still looking here), so
 * nothing is recomputed from the root for each directory.
 */
export function walk<C>(options: WalkOptions<C>): WalkResult<C> {
  const result: WalkResult<C> = { unreadable: [], replaced: [] };
  const enter = (dir: string, context: C): void => {
    const listing = options.list(dir);
    switch (listing.kind) {
      case 'absent':
        return;
      case 'unreadable':
        result.unreadable.push({ path: dir, code: listing.code, context });
        return;
      case 'replaced':
        result.replaced.push({ path: dir, context });
        return;
      case 'ok':
        break;
    }
    const prefix = dir === '' ? '' : `${dir}/`;
    const { names, kinds } = listing;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const path = prefix + name;
      const kind = kinds.charCodeAt(i);
      if (kind === DIR) {
        const inner = options.enter(path, name, context);
        if (inner !== undefined) enter(path, inner);
      } else {
        options.visit(path, kind === FILE ? 'file' : kind === LINK ? 'symlink' : 'other', context);
      }
    }
  };
  for (const start of options.starts) enter(start.dir, start.context);
  return result;
}

/**
 * Puts a directory's entries (names, and one kind letter per name) in the
 * sibling order that makes a depth-first walk come out in path order:
 * "a/x" sorts after "a-b" because "/" follows "-", so a directory sorts as
 * its name followed by "/".
 */
export function orderListing(names: readonly string[], kinds: string): DirListing {
  const order = names.map((_, i) => i);
  order.sort((a, b) => compareEntries(names[a]!, kinds.charCodeAt(a) === DIR, names[b]!, kinds.charCodeAt(b) === DIR));
  let sortedKinds = '';
  for (const i of order) sortedKinds += kinds[i]!;
  return { names: order.map((i) => names[i]!), kinds: sortedKinds };
}

/** Compares two sibling names, a directory's as if followed by "/", without building either string. */
export function compareEntries(a: string, aDir: boolean, b: string, bDir: boolean): number {
  const common = Math.min(a.length, b.length);
  for (let i = 0; i < common; i++) {
    const diff = a.charCodeAt(i) - b.charCodeAt(i);
    if (diff !== 0) return diff;
  }
  // One is a prefix of the other (names in one directory differ): the
  // shorter goes first unless it is a directory, whose "/" meets the
  // longer name's next character.
  const nextA = a.length > common ? a.charCodeAt(common) : aDir ? SLASH : -1;
  const nextB = b.length > common ? b.charCodeAt(common) : bDir ? SLASH : -1;
  return nextA - nextB;
}

const SLASH = 47;

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
