import { globMatcher } from './glob-dirs.js';
import { credentialsMatched, type Group, type Manifest } from './manifest.js';
import { GROUP_PRECEDENCE, scanScopes, type ScopeDecl } from './scan.js';
import type { Snapshot } from './snapshot.js';

/** A scope field of the spec: where a glob was declared. */
export type ScopeField = (typeof GROUP_PRECEDENCE)[number];

const GROUP: Readonly<Record<ScopeField, Group>> = { inputs: 'input', sources: 'source', tests: 'test', artifacts: 'artifact' };

/** What one declared glob covers once every glob of its scope has had its turn. */
export interface GlobCoverage {
  readonly field: ScopeField;
  readonly glob: string;
  /** Readable files the glob matches (for sources and tests, what exclude leaves). */
  readonly matched: number;
  /** How many of them are in the glob's own group. */
  readonly kept: number;
  /** The groups the others went to: a field tried earlier matched them too. */
  readonly lostTo: readonly Group[];
}

/**
 * A glob that will not do what it says. Both make `verify` answer UNKNOWN
 * (scope_empty, or artifact_missing for an artifact glob) however the
 * command does; `vouch checks` says so before anything runs.
 */
export type CoverageWarning =
  /** The glob matches files, but every one of them is in another group. */
  | { readonly reason: 'glob_shadowed'; readonly field: ScopeField; readonly glob: string; readonly matched: number; readonly lostTo: readonly Group[] }
  /** A source or test glob matches no readable file (and allow_missing is off). */
  | { readonly reason: 'glob_empty'; readonly field: ScopeField; readonly glob: string; readonly credentials: readonly string[] };

/** One scope's files as they are now, and what each of its globs covers. */
export interface ScopeCoverage {
  /** Every covered file with its group (artifacts included when they exist now). */
  readonly manifest: Manifest;
  readonly globs: readonly GlobCoverage[];
  readonly warnings: readonly CoverageWarning[];
}

/**
 * Reads several scopes as they are now (one walk) and judges every glob of
 * each. Artifacts are looked for too: one that exists already and went to
 * sources or tests will not be found as an artifact after the run either.
 */
export async function coverScopes(snapshot: Snapshot, scopes: readonly ScopeDecl[]): Promise<ScopeCoverage[]> {
  const scans = await scanScopes(
    snapshot,
    scopes.map((scope) => ({ scope, groups: ['input', 'source', 'test', 'artifact'] as const })),
  );
  return scans.map((scan, i) => {
    const globs = globCoverage(scopes[i]!, scan.manifest);
    return { manifest: scan.manifest, globs, warnings: coverageWarnings(scopes[i]!, globs, scan.manifest) };
  });
}

/**
 * What each glob of a scope covers in its manifest. Every file a glob
 * matches is in the manifest under some group (the first field, in
 * GROUP_PRECEDENCE, with a glob that matches it), unless exclude removed it
 * or it could not be read; so counting the manifest's files the glob
 * matches (exclude applied, for sources and tests) is counting the files it
 * matches on its own.
 */
export function globCoverage(scope: ScopeDecl, manifest: Manifest): GlobCoverage[] {
  const excludes = scope.exclude.map(globMatcher);
  const excluded = manifest.files.map(([path]) => excludes.some((match) => match(path)));
  const out: GlobCoverage[] = [];
  for (const field of GROUP_PRECEDENCE) {
    for (const glob of scope[field] ?? []) {
      const match = globMatcher(glob);
      let matched = 0;
      let kept = 0;
      const lostTo = new Set<Group>();
      for (const [i, [path, , , group]] of manifest.files.entries()) {
        // Excluded files are in the manifest only as artifacts or inputs, which exclude does not touch.
        if ((field !== 'artifacts' && field !== 'inputs' && excluded[i]) || !match(path)) continue;
        matched++;
        if (group === GROUP[field]) kept++;
        else lostTo.add(group);
      }
      out.push({ field, glob, matched, kept, lostTo: [...lostTo].sort() });
    }
  }
  return out;
}

/**
 * The globs that cannot count: shadowed ones always; empty source and test
 * globs unless allow_missing. An artifact glob that matches nothing yet is
 * not a warning: the run is what makes artifacts; nor is an input glob, whose
 * file may appear later (and counts when it does). Inputs are tried first,
 * so no input glob is ever shadowed.
 */
export function coverageWarnings(scope: ScopeDecl, globs: readonly GlobCoverage[], manifest: Manifest): CoverageWarning[] {
  const warnings: CoverageWarning[] = [];
  for (const { field, glob, matched, kept, lostTo } of globs) {
    if (kept > 0 || field === 'inputs') continue;
    if (matched > 0) warnings.push({ reason: 'glob_shadowed', field, glob, matched, lostTo });
    else if (field !== 'artifacts' && !scope.allowMissing) {
      warnings.push({ reason: 'glob_empty', field, glob, credentials: credentialsMatched(manifest.refused, globMatcher(glob)) });
    }
  }
  return warnings;
}
