import type { FoundFile, ReleaseFinding, ReleaseWhere } from './finding.js';
import { installOutput, readInstalled } from './installed.js';
import type { ReleaseManifest } from './manifest.js';
import { readTarball } from './tarball.js';

export interface ReleaseCheck {
  readonly findings: readonly ReleaseFinding[];
  /** The tarball's SHA-256 as found; null when no tarball was given. */
  readonly tarball: string | null;
  /** Files compared, where. */
  readonly compared: { readonly tarball: number | null; readonly installed: number | null };
  /** Install outputs present in the installed copy: named, not verified (installed.ts says why). */
  readonly unverified: readonly string[];
}

/** Every difference between the manifest's files and what was found: differs, missing, extra. `skip`: listed paths not to compare (install outputs, a path already named as a link). */
function compare(where: ReleaseWhere, manifest: ReleaseManifest, found: ReadonlyMap<string, FoundFile>, skip: (path: string) => boolean): ReleaseFinding[] {
  const findings: ReleaseFinding[] = [];
  const listed = new Set<string>();
  for (const file of manifest.files) {
    listed.add(file.path);
    if (skip(file.path)) continue;
    const there = found.get(file.path);
    if (!there) findings.push({ where, reason: 'missing', path: file.path, expected: file.sha256, found: null, detail: 'listed in the manifest, not there' });
    else if (there.sha256 !== file.sha256 || there.size !== file.size) {
      const size = there.size === file.size ? `the same size (${file.size} bytes)` : `${there.size} bytes where the manifest says ${file.size}`;
      findings.push({
        where,
        reason: 'differs',
        path: file.path,
        expected: file.sha256,
        found: there.sha256,
        detail: `${size}, SHA-256 ${there.sha256} where the manifest says ${file.sha256}`,
      });
    }
  }
  for (const [path, there] of found) {
    if (!listed.has(path)) findings.push({ where, reason: 'extra', path, expected: null, found: there.sha256, detail: 'not in the manifest' });
  }
  return findings.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Recomputes every hash the manifest lists: from the tarball (its own
 * SHA-256 first), and from an installed copy when one is given. Nothing is
 * unpacked or written. Every file that differs, is missing or is extra is
 * named; an absent finding list is the only clean answer.
 */
export async function verifyRelease(
  manifest: ReleaseManifest,
  at: { readonly tarball?: { readonly path: string; readonly display: string }; readonly installed?: string },
): Promise<ReleaseCheck> {
  const findings: ReleaseFinding[] = [];
  let tarball: string | null = null;
  let compared: { tarball: number | null; installed: number | null } = { tarball: null, installed: null };
  let unverified: readonly string[] = [];
  if (at.tarball) {
    const read = await readTarball(at.tarball.path, at.tarball.display);
    tarball = read.sha256;
    if (read.sha256 !== manifest.tarball.sha256) {
      findings.push({
        where: 'tarball',
        reason: 'tarball_digest',
        path: at.tarball.display,
        expected: manifest.tarball.sha256,
        found: read.sha256,
        detail: `the tarball's SHA-256 is not the manifest's (${read.size} bytes, the manifest says ${manifest.tarball.size})`,
      });
    }
    const named = new Set(read.findings.map((f) => f.path));
    findings.push(...read.findings, ...compare('tarball', manifest, read.files, (path) => named.has(path) && !read.files.has(path)));
    compared = { ...compared, tarball: read.files.size };
  }
  if (at.installed !== undefined) {
    const read = await readInstalled(at.installed);
    // A listed file that the install rewrites (the code cache) cannot be compared; the walk names it as unverified.
    const named = new Set(read.findings.map((f) => f.path));
    findings.push(...read.findings, ...compare('installed', manifest, read.files, (path) => installOutput(path) !== undefined || named.has(path)));
    compared = { ...compared, installed: read.files.size };
    unverified = read.unverified;
  }
  return { findings, tarball, compared, unverified };
}
