/**
 * What `vouch verify-release` can find wrong, one stable code per kind
 * (the same codes its --json gives). Every finding names the file.
 */
export type ReleaseReason =
  /** The tarball's own SHA-256 is not the manifest's. */
  | 'tarball_digest'
  /** The tarball cannot be read as a gzip'd tar. */
  | 'tarball_unreadable'
  /** A file's SHA-256 (or size) is not the manifest's. */
  | 'differs'
  /** A file of the manifest is not there. */
  | 'missing'
  /** A file is there that the manifest does not list. */
  | 'extra'
  /** A link, a device, a FIFO where a regular file belongs (npm installs regular files only). */
  | 'not_a_file'
  /** The tarball holds this path twice: which copy npm keeps is not what was hashed. */
  | 'duplicate'
  /** A tarball entry outside `package/` (or with an absolute or `..` path). */
  | 'outside_package';

/** Where a finding was made: in the tarball, or in the installed copy. */
export type ReleaseWhere = 'tarball' | 'installed';

export interface ReleaseFinding {
  readonly where: ReleaseWhere;
  readonly reason: ReleaseReason;
  /** The file, relative to the package root (the tarball's own name for tarball_digest and tarball_unreadable). */
  readonly path: string;
  /** The SHA-256 the manifest lists; null where it lists none. */
  readonly expected: string | null;
  /** The SHA-256 found; null where there is no file to hash. */
  readonly found: string | null;
  /** One line for people: what differs. */
  readonly detail: string;
}

/** A regular file as found: its SHA-256 and size. */
export interface FoundFile {
  readonly sha256: string;
  readonly size: number;
}
