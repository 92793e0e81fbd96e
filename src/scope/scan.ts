import { lstatSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { excludesTree, mayMatchBelow, type DirTest } from './glob-dirs.js';
import { isInside } from './inside.js';
import { byPath, type Group, type Manifest, type ManifestFile, type RefusedFile } from './manifest.js';
import type { Snapshot } from './snapshot.js';
import { walk, type EntryKind, type WalkEntry } from './walk.js';

type Candidate = WalkEntry<Group>;

export { isInside } from './inside.js';

/** The scope of one check, as the spec declares it. */
export interface ScopeDecl {
  readonly sources: readonly string[];
  readonly tests: readonly string[];
  readonly artifacts: readonly string[];
  readonly exclude: readonly string[];
  readonly allowMissing: boolean;
}

export type ScanProblemReason =
  | 'path_escape'
  | 'scope_empty'
  | 'changed_during_hash'
  | 'scope_unreadable'
  | 'artifact_missing';

export interface ScanProblem {
  readonly reason: ScanProblemReason;
  /** The file, directory or glob concerned. */
  readonly path: string;
  readonly detail: string;
}

export interface ScanResult {
  readonly manifest: Manifest;
  /** Empty when the scope was read completely and every glob matched. */
  readonly problems: readonly ScanProblem[];
}

interface Pattern {
  readonly group: Group;
  readonly glob: string;
  readonly match: (path: string) => boolean;
  /** Could anything below this directory match? */
  readonly below: DirTest;
  readonly base: string;
  readonly literal: boolean;
}

const GROUP_OF = { sources: 'source', tests: 'test', artifacts: 'artifact' } as const;

/**
 * Lists, classifies and hashes every file in a check's scope, reading
 * through `snapshot` (which may answer from the stat cache). Problems are
 * returned as data: the caller decides what they mean for a verdict.
 */
export async function scanScope(snapshot: Snapshot, scope: ScopeDecl, groups: readonly Group[]): Promise<ScanResult> {
  const root = snapshot.root;
  const patterns = compilePatterns(scope, groups);
  const excludes = scope.exclude.map(globMatcher);
  const excluded = (path: string): boolean => excludes.some((match) => match(path));
  const excludedTrees = scope.exclude.map(excludesTree);
  const artifacts = patterns.filter((p) => p.group === 'artifact');
  const inputs = patterns.filter((p) => p.group !== 'artifact');
  const optInNodeModules = patterns.some((p) => p.glob.split('/').includes('node_modules'));
  const problems: ScanProblem[] = [];
  const refused: RefusedFile[] = [];

  const groupOf = (path: string): Group | undefined => {
    const outsideExclude = !excluded(path);
    for (const pattern of patterns) {
      if (pattern.group !== 'artifact' && !outsideExclude) continue;
      if (pattern.match(path)) return pattern.group;
    }
    return undefined;
  };
  // Enter a directory only if some glob could match below it; excludes do
  // not apply to artifacts, so an excluded tree is still entered for them.
  const descend = (dir: string, name: string): boolean => {
    if (name === '.git' || dir === '.vouch' || (name === 'node_modules' && !optInNodeModules)) return false;
    if (artifacts.some((p) => p.below(dir))) return true;
    if (excludedTrees.some((test) => test(dir))) return false;
    return inputs.some((p) => p.below(dir));
  };

  const candidates: Candidate[] = [];
  const literals = new Set<string>();
  const chains = new ChainChecker(root);
  for (const pattern of patterns) {
    const dir = pattern.literal ? parentOf(pattern.base) : pattern.base;
    const chain = chains.check(dir);
    if (chain.kind === 'escape') {
      problems.push({ reason: 'path_escape', path: chain.at, detail: `a symlink on the path of "${pattern.glob}" leads outside the workspace` });
      continue;
    }
    if (chain.kind === 'link') {
      refused.push([chain.at, 'symlink_to_directory']);
      continue;
    }
    const group = pattern.literal && !literals.has(pattern.base) ? groupOf(pattern.base) : undefined;
    const kind = group && literalKind(root, pattern.base);
    if (group && kind) {
      literals.add(pattern.base);
      candidates.push({ path: pattern.base, kind, tag: group });
    }
  }
  const walked = walk({
    bases: patterns.filter((p) => !p.literal && chains.check(p.base).kind === 'ok').map((p) => p.base),
    descend,
    accept: groupOf,
    list: (dir) => snapshot.list(dir),
  });
  for (const entry of walked.entries) if (!literals.has(entry.path)) candidates.push(entry);
  for (const dir of walked.unreadable) {
    problems.push({ reason: 'scope_unreadable', path: dir.path, detail: `directory could not be listed (${dir.code})` });
  }
  for (const dir of walked.replaced) {
    problems.push({ reason: 'changed_during_hash', path: dir, detail: 'a directory was replaced by a link or a file while it was being walked' });
  }

  const files: ManifestFile[] = [];
  const outcomes = await snapshot.read(candidates);
  candidates.forEach(({ path, tag: group }, i) => {
    const outcome = outcomes[i]!;
    if (outcome.kind === 'refused') refused.push([path, outcome.why]);
    else if (outcome.kind === 'problem') problems.push({ reason: outcome.reason, path, detail: outcome.detail });
    else files.push([path, outcome.sha256, outcome.size, group]);
  });
  // Nearly sorted already (the walk goes in path order): a linear pass.
  files.sort(byPath);
  refused.sort(byPath);
  problems.push(...unmatched(patterns, files, scope.allowMissing));
  return { manifest: { files, refused: dedupe(refused) }, problems };
}

function compilePatterns(scope: ScopeDecl, groups: readonly Group[]): Pattern[] {
  const patterns: Pattern[] = [];
  for (const key of ['sources', 'tests', 'artifacts'] as const) {
    const group = GROUP_OF[key];
    if (!groups.includes(group)) continue;
    for (const glob of scope[key]) {
      const scanned = picomatch.scan(glob);
      patterns.push({
        group,
        glob,
        match: globMatcher(glob),
        below: mayMatchBelow(glob),
        base: scanned.isGlob ? scanned.base : glob,
        literal: !scanned.isGlob,
      });
    }
  }
  return patterns;
}

/**
 * picomatch's own test, minus its per-call bookkeeping: a path equal to the
 * glob text, or matching the glob's regular expression (what
 * picomatch(glob)(path) checks on POSIX paths).
 */
function globMatcher(glob: string): (path: string) => boolean {
  const regex = picomatch.makeRe(glob, { dot: true });
  return (path) => path === glob || regex.test(path);
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** What a literal path names, or undefined when absent or a directory (the glob then matches nothing, which unmatched() reports). */
function literalKind(root: string, path: string): EntryKind | undefined {
  const stat = lstatSync(join(root, path), { throwIfNoEntry: false });
  if (!stat || stat.isDirectory()) return undefined;
  return stat.isFile() ? 'file' : stat.isSymbolicLink() ? 'symlink' : 'other';
}

/** Every declared glob must cover at least one hashed file. */
function unmatched(patterns: readonly Pattern[], files: readonly ManifestFile[], allowMissing: boolean): ScanProblem[] {
  const pending = new Set(patterns.filter((p) => p.group === 'artifact' || !allowMissing));
  for (const file of files) {
    if (pending.size === 0) break;
    for (const pattern of pending) {
      if (pattern.group === file[3] && pattern.match(file[0])) pending.delete(pattern);
    }
  }
  return [...pending].map((pattern) =>
    pattern.group === 'artifact'
      ? { reason: 'artifact_missing', path: pattern.glob, detail: `declared artifact "${pattern.glob}" matched no file` }
      : { reason: 'scope_empty', path: pattern.glob, detail: `${pattern.group} glob "${pattern.glob}" matched no readable file` },
  );
}

function dedupe(refused: RefusedFile[]): RefusedFile[] {
  return refused.filter((entry, i) => i === 0 || entry[0] !== refused[i - 1]![0]);
}

type Chain = { kind: 'ok' } | { kind: 'escape'; at: string } | { kind: 'link'; at: string };

/**
 * Checks that no directory on the way from the root to a walk base is a
 * symlink: readdir would follow it. A link leading outside is a path escape;
 * one leading inside is not followed (its files are reachable by their real
 * path if a glob covers them).
 */
class ChainChecker {
  private readonly cache = new Map<string, Chain>([['', { kind: 'ok' }]]);
  constructor(private readonly root: string) {}

  check(dir: string): Chain {
    const cached = this.cache.get(dir);
    if (cached) return cached;
    const parent = this.check(parentOf(dir));
    let result: Chain = parent;
    if (parent.kind === 'ok') {
      const absolute = join(this.root, dir);
      const stat = lstatSync(absolute, { throwIfNoEntry: false });
      if (stat?.isSymbolicLink()) {
        let real: string | undefined;
        try {
          real = realpathSync(absolute);
        } catch {
          real = undefined;
        }
        result = real !== undefined && !isInside(this.root, real) ? { kind: 'escape', at: dir } : { kind: 'link', at: dir };
      }
    }
    this.cache.set(dir, result);
    return result;
  }
}
