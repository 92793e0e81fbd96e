import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { childProcess } from '../core/builtins.js';
import { isolatedGit, type IsolatedGit } from '../core/git-command.js';

/**
 * What a git hook judges: the commit a push sends (pre-push), or the index
 * a commit is about to record (pre-commit). `indexFile` is the index git
 * named for the hook (GIT_INDEX_FILE: `git commit -a` and `git commit PATH`
 * record a temporary one), absolute; null for the repository's own.
 */
export type Revision = { readonly kind: 'commit'; readonly sha: string } | { readonly kind: 'index'; readonly indexFile: string | null };

/** The revision's files beside the work tree's: the same (no tracked or untracked file differs), or where they differ. */
export type RevisionTree =
  | { readonly kind: 'same' }
  /** `root`: the workspace as the revision has it, in a temporary directory that `close` removes. */
  | { readonly kind: 'differs'; readonly paths: readonly string[]; readonly root: string; close(): void }
  /** Not in a git work tree, or git missing. */
  | { readonly kind: 'no_git' }
  /** git could not read the revision (an unknown commit, a broken index): its words. */
  | { readonly kind: 'unreadable'; readonly detail: string };

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(isolated: IsolatedGit, cwd: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Ran> {
  return new Promise((done) => {
    childProcess().execFile(
      'git',
      isolated.args(args),
      { cwd, timeout: 120_000, maxBuffer: 256 << 20, env: { ...isolated.env, ...extraEnv } },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) }),
    );
  });
}

const paths = (text: string) => text.split('\0').filter((path) => path !== '');

/**
 * The revision's files as a directory, when they differ from the work
 * tree's. git runs isolated (core/git-command.ts): no filter, hook or
 * driver the repository names runs, so the files are the recorded bytes.
 * The temporary directory is removed by `close`, and at process exit if
 * `close` was never reached (an error, a second Ctrl-C).
 *
 * Untracked files that are not ignored count as differences: they are in
 * the work tree and not in the revision. Ignored files are neither's (the
 * revision's copy has none of them).
 */
export async function revisionTree(root: string, revision: Revision, env: NodeJS.ProcessEnv): Promise<RevisionTree> {
  const isolated = isolatedGit(root, env);
  if (isolated === null) return { kind: 'no_git' };
  try {
    const inside = await run(isolated, root, ['rev-parse', '--is-inside-work-tree']);
    if (inside.code !== 0 || inside.stdout.trim() !== 'true') return { kind: 'no_git' };
    const index: Record<string, string> = revision.kind === 'index' && revision.indexFile !== null ? { GIT_INDEX_FILE: revision.indexFile } : {};
    if (revision.kind === 'commit') {
      const known = await run(isolated, root, ['rev-parse', '--verify', '--quiet', `${revision.sha}^{commit}`]);
      if (known.code !== 0) return { kind: 'unreadable', detail: `${revision.sha} names no commit in this repository` };
    }
    // The revision against the work tree, below the workspace only (--relative): what differs elsewhere in the repository is no check's.
    const diffArgs =
      revision.kind === 'commit'
        ? ['diff', '--name-only', '-z', '--no-renames', '--relative', revision.sha, '--']
        : ['diff', '--name-only', '-z', '--no-renames', '--relative', '--'];
    const [diff, others] = await Promise.all([
      run(isolated, root, diffArgs, index),
      run(isolated, root, ['ls-files', '-z', '--others', '--exclude-standard'], index),
    ]);
    if (diff.code !== 0) return { kind: 'unreadable', detail: `git diff: ${diff.stderr.trim() || `exit ${diff.code}`}` };
    if (others.code !== 0) return { kind: 'unreadable', detail: `git ls-files: ${others.stderr.trim() || `exit ${others.code}`}` };
    const differing = [...new Set([...paths(diff.stdout), ...paths(others.stdout)])].sort();
    if (differing.length === 0) return { kind: 'same' };
    return await checkedOut(isolated, root, revision, index, differing);
  } finally {
    isolated.close();
  }
}

/** Writes the revision's files into a fresh temporary directory (the work tree and the repository's index untouched). */
async function checkedOut(isolated: IsolatedGit, root: string, revision: Revision, index: Record<string, string>, differing: string[]): Promise<RevisionTree> {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-revision-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  process.once('exit', remove);
  const close = () => {
    process.removeListener('exit', remove);
    remove();
  };
  const tree = join(dir, 'tree');
  try {
    // A commit goes through an index of its own, in the temporary directory: the repository's is never written.
    const own = revision.kind === 'commit' ? { GIT_INDEX_FILE: join(dir, 'index') } : index;
    if (revision.kind === 'commit') {
      const read = await run(isolated, root, ['read-tree', revision.sha], own);
      if (read.code !== 0) throw new Error(`git read-tree: ${read.stderr.trim() || `exit ${read.code}`}`);
    }
    const out = await run(isolated, isolated.repository.top, ['checkout-index', '--all', '--force', `--prefix=${tree}/`], own);
    if (out.code !== 0) throw new Error(`git checkout-index: ${out.stderr.trim() || `exit ${out.code}`}`);
    const below = relative(isolated.repository.top, root);
    return { kind: 'differs', paths: differing, root: below === '' ? tree : join(tree, below), close };
  } catch (error) {
    close();
    return { kind: 'unreadable', detail: (error as Error).message };
  }
}

/** The index a pre-commit hook names (GIT_INDEX_FILE, relative to the hook's directory), or null for the repository's own. */
export function hookIndexFile(env: NodeJS.ProcessEnv, cwd: string): string | null {
  const named = env.GIT_INDEX_FILE;
  if (named === undefined || named === '') return null;
  return isAbsolute(named) ? named : resolve(cwd, named);
}
