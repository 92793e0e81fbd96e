import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FoundFile, ReleaseFinding } from './finding.js';
import { fileDigest } from './tarball.js';

/**
 * What `npm install` makes in the package directory that is not in the
 * tarball, so no manifest can vouch for it: named, never silently passed.
 * The install script (package.json) builds the native addon into build/
 * and rewrites the code cache; npm puts the dependencies in node_modules/.
 */
export const INSTALL_OUTPUTS: readonly { readonly path: string; readonly dir: boolean; readonly why: string }[] = [
  { path: 'build', dir: true, why: 'built at install from binding.gyp and native/ (the native addon vouch loads)' },
  { path: 'dist/hot.js.cache', dir: false, why: "V8's code cache of dist/hot.js, rewritten at install by the Node that runs it" },
  { path: 'node_modules', dir: true, why: "the dependencies, placed by npm (checked by npm's lockfile integrity, not by this manifest)" },
];

/** A path made at install, and why it cannot be verified; undefined for a path the manifest covers. */
export function installOutput(path: string): (typeof INSTALL_OUTPUTS)[number] | undefined {
  return INSTALL_OUTPUTS.find((o) => (o.dir ? path === o.path || path.startsWith(`${o.path}/`) : path === o.path));
}

export interface InstalledRead {
  readonly files: ReadonlyMap<string, FoundFile>;
  /** Install outputs that are present: not compared. */
  readonly unverified: readonly string[];
  readonly findings: readonly ReleaseFinding[];
}

/**
 * Walks an installed copy (`$(npm root -g)/vouch`) without following links:
 * each regular file hashed; a link or special file where a file belongs is
 * a finding; the install outputs are listed, not read.
 */
export async function readInstalled(root: string): Promise<InstalledRead> {
  const files = new Map<string, FoundFile>();
  const unverified = new Set<string>();
  const findings: ReleaseFinding[] = [];
  const walk = async (relative: string): Promise<void> => {
    for (const name of readdirSync(join(root, relative)).sort()) {
      const path = relative === '' ? name : `${relative}/${name}`;
      const output = installOutput(path);
      if (output) {
        unverified.add(output.path);
        continue;
      }
      const stat = lstatSync(join(root, path));
      if (stat.isDirectory()) await walk(path);
      else if (stat.isFile()) files.set(path, await fileDigest(join(root, path)));
      else
        findings.push({
          where: 'installed',
          reason: 'not_a_file',
          path,
          expected: null,
          found: null,
          detail: stat.isSymbolicLink() ? 'a symbolic link, not a regular file' : 'not a regular file',
        });
    }
  };
  await walk('');
  return { files, unverified: [...unverified], findings };
}
