/** Which part of init proposed a check: names a second check of the same id (`tests-python`). */
export type Family = 'npm' | 'python' | 'go' | 'cargo' | 'make';

/** A proposed check, before the operator reviews it. */
export interface Proposal {
  readonly id: string;
  readonly family: Family;
  readonly run: readonly string[];
  readonly sources: readonly string[];
  readonly tests: readonly string[];
  /** The files that decide what the command does, present or not (pinned at allow). */
  readonly inputs: readonly string[];
  readonly exclude: readonly string[];
  /** A regex the output must match besides exit 0 (a runner that exits 0 having run nothing). */
  readonly expectRegex?: string;
  readonly proves: string;
  readonly block: boolean;
  readonly timeout?: number;
  /** Where the proposal came from, for the comment above it. */
  readonly from: string;
}

/** Build output, caches and dependencies no proposal covers. */
export const COMMON_EXCLUDES = ['**/node_modules/**', 'dist/**', 'build/**', 'coverage/**'] as const;

/** `js`, or `{js,ts}` for several values: a glob's alternatives, sorted. */
export function braced(values: Iterable<string>): string {
  const sorted = [...new Set(values)].sort();
  return sorted.length === 1 ? sorted[0]! : `{${sorted.join(',')}}`;
}

/** `PREFIX*.js`, or `PREFIX*.{js,ts}`: the files of these extensions; undefined for none. */
export function extGlob(prefix: string, exts: Iterable<string>): string | undefined {
  const values = [...exts];
  return values.length === 0 ? undefined : `${prefix}*.${braced(values)}`;
}

/** The extension of a path's file name ('' when none). */
export function extOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1);
}

/** The first segment of a relative path ('' for a file at the root). */
export function topDir(path: string): string {
  const slash = path.indexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}
