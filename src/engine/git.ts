import { childProcess } from '../core/builtins.js';
import { isolatedGit, type IsolatedGit } from '../core/git-command.js';

export interface GitState {
  readonly head: string | null;
  readonly dirty: boolean;
}

/**
 * One git command, run without any of the repository's configuration
 * (core/git-command.ts: no fsmonitor, filter, hook, diff driver or pager it
 * names ever runs); its stdout, or undefined when it fails.
 */
function git(isolated: IsolatedGit, root: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    childProcess().execFile('git', isolated.args(args), { cwd: root, timeout: 10_000, maxBuffer: 64 << 20, env: isolated.env }, (error, stdout) => resolve(error ? undefined : stdout));
  });
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
 * HEAD and the dirty flag, for the record. Null when the workspace is not in
 * a git work tree or git is not installed: a receipt never invents a commit.
 *
 * Dirty means no commit holds the bytes: a tracked file changed anywhere, or
 * an untracked (not ignored) file below `bases` (the literal directories the
 * checks' globs start from, '' for the root). Untracked files elsewhere are
 * not looked for: that is the part of `git status` that lists every
 * directory of the tree. Without `basesOf`, untracked files anywhere count;
 * it is called once the first git command has started.
 */
export async function gitState(root: string, basesOf?: () => readonly string[]): Promise<GitState | null> {
  return withGit(root, null, async (isolated) => {
    // One status for HEAD and the tracked files, started first (it reads the whole index), beside the untracked look-up.
    const tracked = git(isolated, root, ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=no', '--ignore-submodules=all']);
    const bases = basesOf?.();
    const untracked = bases === undefined ? ['status', '--porcelain', '-z', '--untracked-files=normal', '--ignore-submodules=all'] : ['ls-files', '-z', '--others', '--exclude-standard', '--', ...pathspecs(bases)];
    const [status, others] = await Promise.all([tracked, bases === undefined || bases.length > 0 ? git(isolated, root, untracked) : Promise.resolve('')]);
    if (status === undefined) return fallbackState(isolated, root);
    const entries = status.split('\0').filter((entry) => entry !== '');
    const oid = entries.find((entry) => entry.startsWith('# branch.oid '))?.slice('# branch.oid '.length);
    const changed = entries.some((entry) => !entry.startsWith('# '));
    return { head: oid === undefined || oid === '(initial)' ? null : oid, dirty: changed || others === undefined || others.length > 0 };
  });
}

/** Git pathspecs naming exactly these workspace-relative directories or files. */
function pathspecs(bases: readonly string[]): string[] {
  return bases.map((base) => (base === '' ? ':(top)' : `:(top,literal)${base}`));
}

/** When status itself fails: outside a work tree there is nothing to record; inside, the tree is called dirty. */
async function fallbackState(isolated: IsolatedGit, root: string): Promise<GitState | null> {
  const inside = await git(isolated, root, ['rev-parse', '--is-inside-work-tree']);
  if (inside?.trim() !== 'true') return null;
  const head = await git(isolated, root, ['rev-parse', '--verify', '--quiet', 'HEAD']);
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
    if ((await git(isolated, root, ['rev-parse', '--is-inside-work-tree']))?.trim() !== 'true') return 'no_git';
    const target = (await git(isolated, root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]))?.trim();
    if (!target) return 'no_ref';
    const code = await new Promise<number | null>((resolve) => {
      childProcess().execFile('git', isolated.args(['merge-base', '--is-ancestor', commit, target]), { cwd: root, timeout: 10_000, env: isolated.env }, (error) =>
        resolve(error ? (typeof error.code === 'number' ? error.code : null) : 0),
      );
    });
    return code === 0 ? 'landed' : 'not_landed';
  });
}
