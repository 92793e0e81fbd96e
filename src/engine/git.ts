import { relative, sep } from 'node:path';
import { childProcess } from '../core/builtins.js';
import { runGit, takeEarlyStatus, TRACKED_STATUS } from '../core/early-git.js';
import { isolatedGit, type IsolatedGit } from '../core/git-command.js';
import type { Manifest } from '../scope/manifest.js';

export interface GitState {
  readonly head: string | null;
  readonly dirty: boolean;
}

/** Runs `use` with an isolated git for the repository `root` is in, removing it after; `outside` when there is none. */
async function withGit<T>(root: string, outside: T, use: (isolated: IsolatedGit) => Promise<T>): Promise<T> {
  const isolated = isolatedGit(root, process.env);
  if (isolated === null) return outside;
  try {
    return await use(isolated);
  } finally {
    isolated.close();
  }
}

/**
 * HEAD and the dirty flag of the whole work tree, for a record that covers
 * it all (a remote job's claim, a fleet order). Null when the workspace is
 * not in a git work tree or git is not installed: a receipt never invents a
 * commit. Dirty means a tracked file changed, or an untracked (not ignored)
 * file exists, anywhere.
 */
export async function gitState(root: string): Promise<GitState | null> {
  return withGit(root, null, async (isolated) => {
    const [status, others] = await Promise.all([
      runGit(isolated, root, TRACKED_STATUS),
      runGit(isolated, root, ['status', '--porcelain', '-z', '--untracked-files=normal', '--ignore-submodules=all']),
    ]);
    const tracked = status === undefined ? undefined : trackedState(status);
    if (tracked === undefined) return fallbackState(isolated, root);
    return { head: tracked.head, dirty: tracked.changed || others === undefined || others.length > 0 };
  });
}

/** HEAD and whether a tracked file changed, from TRACKED_STATUS's output. */
function trackedState(status: string): { head: string | null; changed: boolean } {
  const entries = status.split('\0').filter((entry) => entry !== '');
  const oid = entries.find((entry) => entry.startsWith('# branch.oid '))?.slice('# branch.oid '.length);
  return { head: oid === undefined || oid === '(initial)' ? null : oid, changed: entries.some((entry) => !entry.startsWith('# ')) };
}

/**
 * What one command's receipts need from git, each for its own check's scope
 * (`stateFor`). HEAD, whether a tracked file changed anywhere, and which
 * files of the checks' scopes the index holds are learnt once (two git
 * commands started together, both reading the index: no directory is
 * listed); a receipt is then dirty when a tracked file changed or a file of
 * its own fingerprint is untracked and not ignored. Which files are in scope
 * comes from vouch's own walk, so git does not list the scope's directories
 * again (`git ls-files --others` from the root read all 13k folders of
 * babel/babel for a check of 600 files); only the files the index lacks, if
 * any, are put to git by name.
 */
export interface ScopedGit {
  /** HEAD and dirty for a receipt whose fingerprint holds `manifest`; null outside a git work tree. */
  stateFor(manifest: Manifest): Promise<GitState | null>;
}

/** What the first two git commands said; null outside a work tree. */
interface IndexFacts {
  readonly head: string | null;
  /** A tracked file changed, or git could not tell: dirty whatever the scope. */
  readonly changed: boolean;
  /** Workspace-relative paths of the tracked files the checks' pathspecs name. */
  readonly tracked: ReadonlySet<string>;
  /** The workspace's path below the top of the work tree ('' or ending in "/"). */
  readonly prefix: string;
  /** The checks' pathspecs (git-pathspecs.ts). */
  readonly pathspecs: readonly string[];
}

/**
 * Starts learning the git facts of the workspace at `root` now (they are
 * read while the checks' files are fingerprinted). `pathspecsOf` gives git
 * pathspecs naming at least every file the checks can fingerprint
 * (scope/git-pathspecs.ts), given the workspace's path below the top of the
 * work tree; it is called once the first git command has started.
 */
export function scopedGit(root: string, pathspecsOf: (prefix: string) => readonly string[]): ScopedGit {
  const learn = async (isolated: IsolatedGit, statusRun: Promise<string | undefined>): Promise<IndexFacts | null> => {
    // Paths in and out are the workspace's; git speaks from the top of the work tree, which may be above it.
    const prefix = workspacePrefix(isolated, root);
    const pathspecs = pathspecsOf(prefix);
    const listing = pathspecs.length === 0 ? Promise.resolve('') : runGit(isolated, root, ['ls-files', '-z', '--cached', '--full-name', '--', ...pathspecs]);
    const [status, files] = await Promise.all([statusRun, listing]);
    const tracked = status === undefined ? undefined : trackedState(status);
    if (tracked === undefined) {
      const fallback = await fallbackState(isolated, root);
      return fallback && { head: fallback.head, changed: true, tracked: new Set(), prefix, pathspecs };
    }
    return {
      head: tracked.head,
      changed: tracked.changed || files === undefined,
      tracked: files === undefined ? new Set() : listed(files, prefix),
      prefix,
      pathspecs,
    };
  };
  // The launcher's status of this repository when there is one (core/early-git.ts); otherwise status first: it takes
  // longest, and the pathspecs are worked out while it starts.
  const early = takeEarlyStatus(root);
  const facts = early
    ? learn(early.isolated, early.status).finally(() => early.isolated.close())
    : withGit<IndexFacts | null>(root, null, (isolated) => learn(isolated, runGit(isolated, root, TRACKED_STATUS)));
  return {
    async stateFor(manifest) {
      const known = await facts;
      if (known === null) return null;
      if (known.changed) return { head: known.head, dirty: true };
      const candidates = notInIndex(manifest, known.tracked);
      return { head: known.head, dirty: candidates.length > 0 && (await anyUntracked(root, known, candidates)) };
    },
  };
}

/**
 * The git facts a command's receipts record: given by its caller (a state,
 * or one on its way: the verifier service passes the client's claim), or
 * learnt here for each check's own scope.
 */
export type GitFacts = GitState | null | Promise<GitState | null> | ScopedGit;

/** How a receipt whose fingerprint holds a manifest gets its git state: from the facts given, or from a ScopedGit started by `start`. */
export function gitForReceipts(given: GitFacts | undefined, start: () => ScopedGit): (manifest: Manifest) => Promise<GitState | null> {
  if (given === undefined) {
    const scoped = start();
    return (manifest) => scoped.stateFor(manifest);
  }
  if (given !== null && 'stateFor' in given) return (manifest) => given.stateFor(manifest);
  const state = Promise.resolve(given);
  return () => state;
}

/** The workspace root's path below the top of its work tree, with a trailing slash ('' when it is the top). */
function workspacePrefix(isolated: IsolatedGit, root: string): string {
  const below = relative(isolated.repository.top, root).split(sep).join('/');
  return below === '' ? '' : `${below}/`;
}

/** ls-files -z --full-name output, as workspace-relative paths. */
function listed(output: string, prefix: string): Set<string> {
  const paths = new Set<string>();
  for (const path of output.split('\0')) if (path !== '') paths.add(path.slice(prefix.length));
  return paths;
}

/**
 * The manifest's paths (files hashed and files refused) that the index does
 * not hold. A path below a tracked path is inside a submodule (a tracked
 * file cannot have entries below it): the submodule's own repository
 * decides about it, as `git status --ignore-submodules=all` leaves it.
 */
function notInIndex(manifest: Manifest, tracked: ReadonlySet<string>): string[] {
  const candidates: string[] = [];
  const consider = (path: string) => {
    if (tracked.has(path)) return;
    for (let slash = path.indexOf('/'); slash > 0; slash = path.indexOf('/', slash + 1)) if (tracked.has(path.slice(0, slash))) return;
    candidates.push(path);
  };
  for (const file of manifest.files) consider(file[0]);
  for (const [path] of manifest.refused) consider(path);
  return candidates;
}

/** Above this many files the index lacks, git is given the checks' pathspecs instead of the files (one argument each would not fit). */
const MAX_NAMED = 2000;

/**
 * Whether any of these workspace-relative paths is untracked and not
 * ignored (.gitignore files at every level, .git/info/exclude), as `git
 * ls-files --others --exclude-standard` says of them. Named one by one, git
 * lists only the directories on their way to them; too many to name (a
 * scope nothing of which is committed yet), git lists what the checks'
 * pathspecs name and the scope's files are picked from it. True when git
 * cannot tell: the receipt then reads dirty.
 */
async function anyUntracked(root: string, known: IndexFacts, paths: readonly string[]): Promise<boolean> {
  const named = paths.length <= MAX_NAMED;
  const pathspecs = named ? paths.map((path) => `:(top,literal)${known.prefix}${path}`) : known.pathspecs;
  return withGit(root, true, async (isolated) => {
    const output = await runGit(isolated, root, ['ls-files', '-z', '--others', '--exclude-standard', '--full-name', '--', ...pathspecs]);
    if (output === undefined) return true;
    if (named) return output.length > 0;
    const wanted = new Set(paths);
    return output.split('\0').some((path) => wanted.has(path.slice(known.prefix.length)));
  });
}

/** When status itself fails: outside a work tree there is nothing to record; inside, the tree is called dirty. */
async function fallbackState(isolated: IsolatedGit, root: string): Promise<GitState | null> {
  const inside = await runGit(isolated, root, ['rev-parse', '--is-inside-work-tree']);
  if (inside?.trim() !== 'true') return null;
  const head = await runGit(isolated, root, ['rev-parse', '--verify', '--quiet', 'HEAD']);
  return { head: head?.trim() || null, dirty: true };
}

/** Where a commit stands against a branch (or any ref naming a commit). */
export type Landing = 'landed' | 'not_landed' | 'no_ref' | 'no_git';

/**
 * Whether `commit` is on `ref`: the commit itself or one of its ancestors
 * (`git merge-base --is-ancestor`). A ref that names no commit here is
 * `no_ref`; a workspace outside git, or git missing, is `no_git`.
 */
export async function landing(root: string, commit: string, ref: string): Promise<Landing> {
  if (ref.startsWith('-')) return 'no_ref';
  return withGit(root, 'no_git', async (isolated) => {
    if ((await runGit(isolated, root, ['rev-parse', '--is-inside-work-tree']))?.trim() !== 'true') return 'no_git';
    const target = (await runGit(isolated, root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]))?.trim();
    if (!target) return 'no_ref';
    const code = await new Promise<number | null>((resolve) => {
      childProcess().execFile(
        'git',
        isolated.args(['merge-base', '--is-ancestor', commit, target]),
        { cwd: root, timeout: 10_000, env: isolated.env },
        (error) => resolve(error ? (typeof error.code === 'number' ? error.code : null) : 0),
      );
    });
    return code === 0 ? 'landed' : 'not_landed';
  });
}
