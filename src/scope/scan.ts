import { lstatSync, realpathSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';
import picomatch from 'picomatch';
import { excludesOf } from './excludes.js';
import { excludesTree, globMatcher, mayMatchBelow, type DirTest } from './glob-dirs.js';
import { isInside } from './inside.js';
import { byPath, credentialsMatched, manifestDigest, type Group, type ManifestFile, type RefusedFile } from './manifest.js';
import { scopeKey } from './remembered.js';
import type { ScanProblem, ScanProblemReason, ScanResult, ScopeDecl, ScopeRequest } from './scan-types.js';
import type { FileOutcome, Snapshot } from './snapshot.js';
import { minimalBases, walk, type EntryKind } from './walk.js';

export { isInside } from './inside.js';

export type { ScanProblem, ScanProblemReason, ScanResult, ScopeDecl, ScopeRequest } from './scan-types.js';

/**
 * Lists, classifies and hashes every file in a check's scope, reading
 * through `snapshot` (which may answer from the stat cache). Problems are
 * returned as data: the caller decides what they mean for a verdict.
 */
export async function scanScope(snapshot: Snapshot, scope: ScopeDecl, groups: readonly Group[]): Promise<ScanResult> {
  return (await scanScopes(snapshot, [{ scope, groups }]))[0]!;
}

/** Bit masks of scopes are 32-bit: larger requests are scanned in slices. */
const SLICE = 30;

/**
 * Scans several scopes in one walk of the tree: each directory is listed and
 * each file read once, whatever number of checks cover it. Every scope gets
 * exactly the result a walk of its own would give: a directory is entered
 * for a scope only from that scope's bases and by that scope's rules.
 */
export async function scanScopes(snapshot: Snapshot, requests: readonly ScopeRequest[]): Promise<ScanResult[]> {
  // First what the scopes' records can answer (remembered.ts), then one walk for the rest.
  const keys = requests.map(scopeKey);
  const results: (ScanResult | undefined)[] = snapshot.remembered(keys);
  const pending = requests.flatMap((_, i) => (results[i] === undefined ? [i] : []));
  for (let at = 0; at < pending.length; at += SLICE) {
    const slice = pending.slice(at, at + SLICE);
    const scanned = await scanSlice(
      snapshot,
      slice.map((i) => requests[i]!),
    );
    scanned.forEach(({ result, dirs }, j) => {
      const i = slice[j]!;
      if (dirs === undefined) {
        results[i] = result;
        return;
      }
      const digest = manifestDigest(result.manifest);
      snapshot.keep(keys[i]!, result, digest, dirs);
      results[i] = { ...result, manifestDigest: digest };
    });
  }
  return results as ScanResult[];
}

/** A scope's scan, with the directories its result depends on; undefined when the result must not be remembered. */
interface SliceResult {
  readonly result: ScanResult;
  readonly dirs: readonly string[] | undefined;
}

/** Problems that a scan reproduces from the same listings: a remembered result may carry them. Anything else (a link leading out, a file changing, a directory unreadable) is looked at afresh every time. */
const STABLE_PROBLEMS: ReadonlySet<ScanProblemReason> = new Set(['scope_empty', 'artifact_missing']);

interface Candidate {
  readonly path: string;
  readonly kind: EntryKind;
  /** The group of this file in each scope of the slice (undefined: not in that scope). */
  readonly groups: (Group | undefined)[];
}

async function scanSlice(snapshot: Snapshot, requests: readonly ScopeRequest[]): Promise<SliceResult[]> {
  const root = snapshot.root;
  const scopes = requests.map((request) => new CompiledScope(request.scope, request.groups));
  const chains = new ChainChecker(root, (dir) => snapshot.dirStat(dir), !snapshot.refusesLinks);
  const candidates: Candidate[] = [];
  const literals = new Map<string, Candidate>();
  /** For each walk base, the scopes (bit mask) that start there. */
  const basesAt = new Map<string, number>();

  scopes.forEach((scope, s) => {
    for (const pattern of scope.patterns) {
      const dir = pattern.literal ? parentOf(pattern.base) : pattern.base;
      const chain = chains.check(dir);
      if (chain.kind === 'escape') {
        scope.problems.push({ reason: 'path_escape', path: chain.at, detail: `a symlink on the path of "${pattern.glob}" leads outside the workspace` });
        scope.recordable = false;
        continue;
      }
      if (chain.kind === 'link') {
        scope.refused.push([chain.at, 'symlink_to_directory']);
        scope.recordable = false;
        continue;
      }
      for (const probe of chains.dependsOn(dir)) scope.dirs.add(probe);
      if (!pattern.literal) {
        basesAt.set(pattern.base, (basesAt.get(pattern.base) ?? 0) | (1 << s));
        continue;
      }
      const group = scope.groupOf(pattern.base);
      const kind = group && literalKind(root, pattern.base);
      if (!group || !kind) continue;
      let candidate = literals.get(pattern.base);
      if (!candidate) {
        candidate = { path: pattern.base, kind, groups: new Array<Group | undefined>(scopes.length) };
        literals.set(pattern.base, candidate);
        candidates.push(candidate);
      }
      candidate.groups[s] ??= group;
    }
  });

  // Directories on the way to a base deeper than where another scope walks
  // are entered even if no scope looks at them, to reach the base.
  const onTheWay = new Set<string>();
  for (const base of basesAt.keys()) {
    for (let slash = base.indexOf('/'); slash >= 0; slash = base.indexOf('/', slash + 1)) onTheWay.add(base.slice(0, slash));
  }
  const starts = minimalBases([...basesAt.keys()]).map((dir) => ({ dir, context: basesAt.get(dir)! }));
  // Every directory a scope's walk lists is one its result depends on (its
  // bases are among those it depends on already, when they exist).
  const listedFor = (dir: string, mask: number) => {
    for (let s = 0, bit = 1; bit <= mask; s++, bit <<= 1) if (mask & bit) scopes[s]!.dirs.add(dir);
  };
  const walked = walk<number>({
    starts,
    enter: (dir, name, parent) => {
      if (name === '.git' || dir === '.vouch') return undefined;
      let mask = basesAt.get(dir) ?? 0;
      for (let s = 0, bit = 1; bit <= parent; s++, bit <<= 1) {
        if (parent & bit && !(mask & bit) && scopes[s]!.descend(dir, name)) mask |= bit;
      }
      if (mask !== 0) listedFor(dir, mask);
      return mask !== 0 || onTheWay.has(dir) ? mask : undefined;
    },
    visit: (path, kind, mask) => {
      let groups: (Group | undefined)[] | undefined;
      for (let s = 0, bit = 1; bit <= mask; s++, bit <<= 1) {
        if (!(mask & bit)) continue;
        const group = scopes[s]!.groupOf(path);
        if (group === undefined) continue;
        groups ??= new Array<Group | undefined>(scopes.length);
        groups[s] = group;
      }
      if (groups === undefined) return;
      const literal = literals.get(path);
      if (literal) groups.forEach((group, s) => (literal.groups[s] ??= group));
      else candidates.push({ path, kind, groups });
    },
    list: (dir) => snapshot.list(dir),
  });
  const inScopes = (mask: number) => scopes.filter((_, s) => mask & (1 << s));
  for (const dir of walked.unreadable) {
    for (const scope of inScopes(dir.context)) {
      scope.problems.push({ reason: 'scope_unreadable', path: dir.path, detail: `directory could not be listed (${dir.code})` });
    }
  }
  for (const dir of walked.replaced) {
    for (const scope of inScopes(dir.context)) {
      scope.problems.push({ reason: 'changed_during_hash', path: dir.path, detail: 'a directory was replaced by a link or a file while it was being walked' });
    }
  }

  // A credential-shaped file is read (hashed, never shown) only where an input glob names it.
  const outcomes = await snapshot.read(candidates, (i) => candidates[i]!.groups.includes('input'));
  candidates.forEach(({ path, kind, groups }, i) => {
    const read = outcomes[i]!;
    // Only what the listings and the files' own stats decide can be
    // remembered: a link is judged by its target, which neither shows.
    const remembers = kind !== 'symlink' && (read.kind === 'hashed' || (read.kind === 'refused' && (read.why === 'credential' || kind === 'other')));
    groups.forEach((group, s) => {
      if (group === undefined) return;
      const scope = scopes[s]!;
      const outcome: FileOutcome = read.kind === 'hashed' && read.credential === true && group !== 'input' ? { kind: 'refused', why: 'credential' } : read;
      if (!remembers) scope.recordable = false;
      if (outcome.kind === 'refused') scope.refused.push([path, outcome.why]);
      else if (outcome.kind === 'problem') scope.problems.push({ reason: outcome.reason, path, detail: outcome.detail });
      else scope.files.push([path, outcome.sha256, outcome.size, group]);
    });
  });
  return scopes.map((scope) => {
    const result = scope.result();
    const stable = scope.recordable && result.problems.every((problem) => STABLE_PROBLEMS.has(problem.reason));
    return { result, dirs: stable ? [...scope.dirs] : undefined };
  });
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

const GROUP_OF = { inputs: 'input', sources: 'source', tests: 'test', artifacts: 'artifact' } as const;

/**
 * The order globs are tried in: a file takes the group of the first field
 * with a glob that matches it. Inputs first: a file that decides what the
 * command does (a conftest.py under tests/, a package.json that `**` also
 * matches) is pinned as such, whatever else names it.
 */
export const GROUP_PRECEDENCE = ['inputs', 'tests', 'sources', 'artifacts'] as const;

/** The groups `exclude` removes files from: an artifact is what the run made, an input what decides the run. */
function excludable(group: Group): boolean {
  return group === 'source' || group === 'test';
}

/** One scope's globs, compiled, and what its scan found. */
class CompiledScope {
  readonly patterns: Pattern[] = [];
  readonly files: ManifestFile[] = [];
  readonly refused: RefusedFile[] = [];
  readonly problems: ScanProblem[] = [];
  /** The directories this scope's result depends on (listed, or on the way to a base). */
  readonly dirs = new Set<string>();
  /** False once something was met that a record cannot vouch for (see remembered.ts). */
  recordable = true;
  private readonly excludes: ((path: string) => boolean)[];
  private readonly excludedTrees: DirTest[];
  /** Artifact and input globs, which exclude does not touch. */
  private readonly kept: Pattern[];
  /** Source and test globs. */
  private readonly excludable: Pattern[];
  private readonly optInNodeModules: boolean;

  constructor(
    private readonly scope: ScopeDecl,
    groups: readonly Group[],
  ) {
    // Tests before sources: a file both match is a test (the narrower,
    // deliberate declaration), so `sources: ["**/*.py"]` beside `tests:
    // ["tests/**"]` leaves the tests their files. Inputs come before both,
    // artifacts last.
    for (const key of GROUP_PRECEDENCE) {
      const group = GROUP_OF[key];
      if (!groups.includes(group)) continue;
      for (const glob of scope[key] ?? []) {
        const scanned = picomatch.scan(glob);
        this.patterns.push({
          group,
          glob,
          match: globMatcher(glob),
          below: mayMatchBelow(glob),
          base: scanned.isGlob ? scanned.base : glob,
          literal: !scanned.isGlob,
        });
      }
    }
    const exclude = excludesOf(scope);
    this.excludes = exclude.map(globMatcher);
    this.excludedTrees = exclude.map(excludesTree);
    this.kept = this.patterns.filter((p) => !excludable(p.group));
    this.excludable = this.patterns.filter((p) => excludable(p.group));
    this.optInNodeModules = this.patterns.some((p) => p.glob.split('/').includes('node_modules'));
  }

  /** The group a path belongs to in this scope (GROUP_PRECEDENCE); excludes apply to sources and tests, not artifacts or inputs. */
  groupOf(path: string): Group | undefined {
    let excluded: boolean | undefined;
    for (const pattern of this.patterns) {
      if (excludable(pattern.group) && (excluded ??= this.excludes.some((match) => match(path)))) continue;
      if (pattern.match(path)) return pattern.group;
    }
    return undefined;
  }

  /**
   * Whether to enter a directory: some glob could match below it. Excludes
   * do not apply to artifacts and inputs, so an excluded tree is still
   * entered for them.
   */
  descend(dir: string, name: string): boolean {
    if (name === 'node_modules' && !this.optInNodeModules) return false;
    if (this.kept.some((p) => p.below(dir))) return true;
    if (this.excludedTrees.some((test) => test(dir))) return false;
    return this.excludable.some((p) => p.below(dir));
  }

  result(): ScanResult {
    // Nearly sorted already (the walk goes in path order): a linear pass.
    this.files.sort(byPath);
    this.refused.sort(byPath);
    this.problems.push(...unmatched(this.patterns, this.files, this.refused, this.scope.allowMissing));
    return { manifest: { files: this.files, refused: dedupe(this.refused) }, problems: this.problems };
  }
}

/**
 * The literal directories (or files) a scope's globs start from: nothing in
 * the scope lies outside them. '' is the root.
 */
export function scopeBases(scope: ScopeDecl): string[] {
  const globs = [...(scope.inputs ?? []), ...scope.sources, ...scope.tests, ...scope.artifacts];
  return minimalBases(
    globs.map((glob) => {
      const scanned = picomatch.scan(glob);
      return scanned.isGlob ? scanned.base : glob;
    }),
  );
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

/**
 * Every declared glob must cover at least one hashed file, except an input
 * glob: the file that decides what runs may appear later, and must count
 * when it does (an absent pytest.ini is a state of the inputs, not a gap).
 */
function unmatched(patterns: readonly Pattern[], files: readonly ManifestFile[], refused: readonly RefusedFile[], allowMissing: boolean): ScanProblem[] {
  const pending = new Set(patterns.filter((p) => p.group !== 'input' && (p.group === 'artifact' || !allowMissing)));
  for (const file of files) {
    if (pending.size === 0) break;
    for (const pattern of pending) {
      if (pattern.group === file[3] && pattern.match(file[0])) pending.delete(pattern);
    }
  }
  return [...pending].map((pattern) => {
    // Files the glob matches that another group took: say so, or "matched
    // nothing" reads as a lie while the files are there.
    const taken = files.filter((file) => pattern.match(file[0]));
    const fields = [...new Set(taken.map((file) => `${file[3]}s`))].join(' and ');
    const elsewhere =
      taken.length === 0 ? credentialNote(pattern, refused) : ` of its own: the ${taken.length} it matches went to ${fields}, whose globs are tried first`;
    return pattern.group === 'artifact'
      ? { reason: 'artifact_missing', path: pattern.glob, detail: `declared artifact "${pattern.glob}" matched no file${elsewhere}` }
      : { reason: 'scope_empty', path: pattern.glob, detail: `${pattern.group} glob "${pattern.glob}" matched no readable file${elsewhere}` };
  });
}

/**
 * A glob that names only credential-shaped files (`.npmrc`) can never match:
 * vouch does not read them as scope. Say so, and where such a file is
 * proved instead, or "matched no readable file" reads as a lie.
 */
function credentialNote(pattern: Pattern, refused: readonly RefusedFile[]): string {
  const secret = credentialsMatched(refused, pattern.match);
  if (secret.length === 0) return '';
  return `: ${secret.slice(0, 3).join(', ')}${secret.length > 3 ? ` and ${secret.length - 3} more` : ''} ${secret.length === 1 ? 'is' : 'are'} credential-shaped, never read as scope; a tool config such as .npmrc is pinned by hash at \`vouch allow\` instead (list others in tool_configs:)`;
}

function dedupe(refused: RefusedFile[]): RefusedFile[] {
  return refused.filter((entry, i) => i === 0 || entry[0] !== refused[i - 1]![0]);
}

type Chain = { kind: 'ok' } | { kind: 'escape'; at: string } | { kind: 'link'; at: string };

const S_IFMT = 0o170000n;
const S_IFDIR = 0o040000n;

/**
 * Checks that no directory on the way from the root to a walk base is a
 * symlink: readdir would follow it. A link leading outside is a path escape;
 * one leading inside is not followed (its files are reachable by their real
 * path if a glob covers them).
 */
class ChainChecker {
  private readonly cache = new Map<string, Chain>([['', { kind: 'ok' }]]);
  constructor(
    private readonly root: string,
    /** lstat of a directory on the way, through the snapshot (which remembers it). */
    private readonly stat: (dir: string) => BigIntStats | undefined,
    /** false: a link is never resolved, only refused (Snapshot.refusesLinks). */
    private readonly resolve = true,
  ) {}

  check(dir: string): Chain {
    const cached = this.cache.get(dir);
    if (cached) return cached;
    const parent = this.check(parentOf(dir));
    let result: Chain = parent;
    if (parent.kind === 'ok') {
      if (this.stat(dir)?.isSymbolicLink() && !this.resolve) result = { kind: 'link', at: dir };
      else if (this.stat(dir)?.isSymbolicLink()) {
        const absolute = join(this.root, dir);
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

  /**
   * The directories whose stats show that the way to `dir` (checked: no
   * link on it) is still the same: each one from the top down that exists,
   * and, where the way ends (something absent, or a file), the directory
   * above it, whose listing would change if it appeared.
   */
  dependsOn(dir: string): string[] {
    const parts = dir === '' ? [] : dir.split('/');
    const dirs: string[] = [];
    let above = '';
    for (let i = 0; i < parts.length; i++) {
      const path = parts.slice(0, i + 1).join('/');
      const stat = this.stat(path);
      if (!stat || (stat.mode & S_IFMT) !== S_IFDIR) {
        // Looked at (the root is not otherwise), so that it is remembered.
        this.stat(above);
        dirs.push(above);
        return dirs;
      }
      dirs.push(path);
      above = path;
    }
    if (parts.length === 0) {
      this.stat('');
      dirs.push('');
    }
    return dirs;
  }
}
