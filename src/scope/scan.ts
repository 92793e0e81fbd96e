import { lstatSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import picomatch from 'picomatch';
import { isCredentialPath } from './credentials.js';
import { hashFile } from './hash-file.js';
import { byPath, type Group, type Manifest, type ManifestFile, type RefusedFile } from './manifest.js';
import { walk, type EntryKind } from './walk.js';

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
  readonly base: string;
  readonly literal: boolean;
}

const GROUP_OF = { sources: 'source', tests: 'test', artifacts: 'artifact' } as const;

/**
 * Lists, classifies and hashes every file in a check's scope. Problems are
 * returned as data: the caller decides what they mean for a verdict.
 */
export function scanScope(root: string, scope: ScopeDecl, groups: readonly Group[]): ScanResult {
  const patterns = compilePatterns(scope, groups);
  const excluded = scope.exclude.length > 0 ? picomatch([...scope.exclude], { dot: true }) : () => false;
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

  const candidates = new Map<string, EntryKind>();
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
    if (pattern.literal) addLiteral(root, pattern.base, candidates);
  }
  const walked = walk(root, {
    bases: patterns.filter((p) => !p.literal && chains.check(p.base).kind === 'ok').map((p) => p.base),
    prune: (dir, name) => name === '.git' || dir === '.vouch' || (name === 'node_modules' && !optInNodeModules),
    accept: (path) => groupOf(path) !== undefined,
  });
  for (const entry of walked.entries) candidates.set(entry.path, entry.kind);
  for (const dir of walked.unreadable) {
    problems.push({ reason: 'scope_unreadable', path: dir.path, detail: `directory could not be listed (${dir.code})` });
  }

  const files: ManifestFile[] = [];
  for (const [path, kind] of candidates) {
    const group = groupOf(path);
    if (group === undefined) continue;
    const outcome = classify(root, path, kind);
    if (outcome.kind === 'refused') refused.push([path, outcome.why]);
    else if (outcome.kind === 'problem') problems.push({ reason: outcome.reason, path, detail: outcome.detail });
    else files.push([path, outcome.sha256, outcome.size, group]);
  }
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
        match: picomatch(glob, { dot: true }),
        base: scanned.isGlob ? scanned.base : glob,
        literal: !scanned.isGlob,
      });
    }
  }
  return patterns;
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function addLiteral(root: string, path: string, candidates: Map<string, EntryKind>): void {
  try {
    const stat = lstatSync(join(root, path));
    if (stat.isDirectory()) return;
    candidates.set(path, stat.isFile() ? 'file' : stat.isSymbolicLink() ? 'symlink' : 'other');
  } catch {
    // Absent: the glob matches nothing, which unmatched() reports.
  }
}

type Classified =
  | { readonly kind: 'hashed'; readonly sha256: ManifestFile[1]; readonly size: number }
  | { readonly kind: 'refused'; readonly why: RefusedFile[1] }
  | { readonly kind: 'problem'; readonly reason: ScanProblemReason; readonly detail: string };

function classify(root: string, path: string, kind: EntryKind): Classified {
  if (isCredentialPath(path)) return { kind: 'refused', why: 'credential' };
  if (kind === 'other') return { kind: 'refused', why: 'not_regular_file' };
  let target = join(root, path);
  if (kind === 'symlink') {
    let real: string;
    try {
      real = realpathSync(target);
    } catch {
      return { kind: 'refused', why: 'dangling_symlink' };
    }
    if (!isInside(root, real)) {
      return { kind: 'problem', reason: 'path_escape', detail: `symlink resolves outside the workspace, to ${real}` };
    }
    const realRelative = relative(root, real).split(sep).join('/');
    if (isCredentialPath(realRelative)) return { kind: 'refused', why: 'credential' };
    const stat = statSync(real, { throwIfNoEntry: false });
    if (!stat) return { kind: 'refused', why: 'dangling_symlink' };
    if (stat.isDirectory()) return { kind: 'refused', why: 'symlink_to_directory' };
    target = real;
  }
  const hashed = hashFile(target, root);
  if (hashed.ok) return { kind: 'hashed', sha256: hashed.sha256, size: hashed.size };
  if (hashed.why === 'not_regular_file') return { kind: 'refused', why: 'not_regular_file' };
  return {
    kind: 'problem',
    reason: hashed.why === 'unreadable' ? 'scope_unreadable' : 'changed_during_hash',
    detail: hashed.detail,
  };
}

export function isInside(root: string, absolute: string): boolean {
  return absolute === root || absolute.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
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
