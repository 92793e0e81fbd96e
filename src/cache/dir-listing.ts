/**
 * A directory's entries in walk order (walk.ts, entryOrder): the names, and
 * one kind letter per name: "d" directory, "f" regular file, "l" symbolic
 * link, "o" anything else. Two flat values rather than an object per entry:
 * a large tree has tens of thousands of entries and the hot path walks them
 * all on every call.
 */
export interface DirListing {
  readonly names: readonly string[];
  readonly kinds: string;
}

export const DIR = 100; // "d"
export const FILE = 102; // "f"
export const LINK = 108; // "l"

/** "kinds/name/name/...": names never hold "/" or NUL. */
export function encodeListing(listing: DirListing): string {
  return `${listing.kinds}/${listing.names.join('/')}`;
}

const KINDS = /^[dflo]*$/;

export function decodeListing(text: string): DirListing | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const kinds = text.slice(0, slash);
  if (!KINDS.test(kinds)) return undefined;
  const names = kinds.length === 0 ? [] : text.slice(slash + 1).split('/');
  return names.length === kinds.length ? { names, kinds } : undefined;
}
