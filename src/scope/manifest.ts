import { nodeCrypto } from '../core/builtins.js';
import type { Sha256 } from '../core/digest.js';

/**
 * Which field of a check took a file: `input` (the files that decide what
 * the command does), `test`, `source`, or `artifact` (made by the run).
 */
export type Group = 'source' | 'test' | 'artifact' | 'input';

/** One hashed file: [path, sha256, size, group]. A tuple keeps manifests small. */
export type ManifestFile = readonly [path: string, sha256: Sha256, size: number, group: Group];

/** Why a file in scope was not read. */
export type RefusalReason = 'credential' | 'not_regular_file' | 'dangling_symlink' | 'symlink_to_directory';

export type RefusedFile = readonly [path: string, why: RefusalReason];

/**
 * Every file a check covers, sorted by path, plus the paths refused. The
 * manifest's digest is what a receipt records; the manifest itself is stored
 * once per distinct digest.
 */
export interface Manifest {
  readonly files: readonly ManifestFile[];
  readonly refused: readonly RefusedFile[];
}

/**
 * SHA-256 of the canonical JSON (RFC 8785) of `{v: 1, files, refused}`:
 * exactly `digestJson` of that object (manifest.test.ts holds them equal),
 * written out directly because a manifest can list a hundred thousand files
 * and the generic serialiser would walk every tuple as an unknown value.
 * Keys sort as "files" < "refused" < "v"; tuples keep their order; strings
 * and numbers are serialised by JSON.stringify, as JCS prescribes.
 */
export function manifestDigest(manifest: Manifest): Sha256 {
  const hash = nodeCrypto().createHash('sha256');
  let text = '{"files":[';
  // While every character is ASCII, UTF-8 and Latin-1 are the same bytes,
  // and Latin-1 spares the encoder a pass.
  let ascii = true;
  const flush = () => {
    hash.update(text, ascii ? 'latin1' : 'utf8');
    text = '';
    ascii = true;
  };
  let first = true;
  for (const [path, sha256, size, group] of manifest.files) {
    if (!Number.isSafeInteger(size)) throw new TypeError(`manifest size of ${path} is not an integer`);
    // A hex digest (the Sha256 type), a group name and an integer serialise
    // as themselves; only the path may need escaping.
    let quoted: string;
    if (PLAIN.test(path)) quoted = `"${path}"`;
    else {
      quoted = JSON.stringify(path);
      ascii &&= !NON_ASCII.test(quoted);
    }
    text += `${first ? '' : ','}[${quoted},"${sha256}",${size},"${group}"]`;
    first = false;
    // Whole tuples per update: a chunk never splits a character.
    if (text.length >= 1 << 16) flush();
  }
  flush();
  text = '],"refused":[';
  first = true;
  for (const [path, why] of manifest.refused) {
    text += `${first ? '' : ','}[${JSON.stringify(path)},${JSON.stringify(why)}]`;
    first = false;
  }
  hash.update(`${text}],"v":1}`, 'utf8');
  return hash.digest('hex') as Sha256;
}

/** Printable ASCII without quote or backslash: serialises as itself between quotes. */
const PLAIN = /^[\u0020\u0021\u0023-\u005b\u005d-\u007e]*$/;
const NON_ASCII = /[^\u0000-\u007f]/;

export function byPath<T extends readonly [string, ...unknown[]]>(a: T, b: T): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

export interface ManifestDiff {
  readonly added: string[];
  readonly removed: string[];
  readonly modified: string[];
}

/** What changed between two manifests, by path. */
export function diffManifests(before: Manifest, after: Manifest): ManifestDiff {
  const old = new Map(before.files.map((file) => [file[0], file]));
  const diff: ManifestDiff = { added: [], removed: [], modified: [] };
  for (const file of after.files) {
    const previous = old.get(file[0]);
    if (!previous) diff.added.push(file[0]);
    else if (previous[1] !== file[1] || previous[3] !== file[3]) diff.modified.push(file[0]);
    old.delete(file[0]);
  }
  diff.removed.push(...old.keys());
  return diff;
}

/** Restricts a manifest to some groups (e.g. sources and tests, for the before/after comparison). */
export function onlyGroups(manifest: Manifest, groups: readonly Group[]): Manifest {
  return { files: manifest.files.filter((file) => groups.includes(file[3])), refused: manifest.refused };
}

/** The credential-shaped files a glob names: refused as scope, so the glob can never match them. */
export function credentialsMatched(refused: readonly RefusedFile[], match: (path: string) => boolean): string[] {
  return refused.filter(([path, why]) => why === 'credential' && match(path)).map(([path]) => path);
}
