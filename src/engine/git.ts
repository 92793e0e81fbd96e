import { childProcess } from '../core/builtins.js';

export interface GitState {
  readonly head: string | null;
  readonly dirty: boolean;
}

function git(root: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    childProcess().execFile('git', args, { cwd: root, timeout: 10_000, maxBuffer: 64 << 20, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } }, (error, stdout) =>
      resolve(error ? undefined : stdout),
    );
  });
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
  // One status for HEAD and the tracked files, started first (it reads the whole index), beside the untracked look-up.
  const tracked = git(root, ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=no']);
  const bases = basesOf?.();
  const untracked = bases === undefined ? ['status', '--porcelain', '-z', '--untracked-files=normal'] : ['ls-files', '-z', '--others', '--exclude-standard', '--', ...pathspecs(bases)];
  const [status, others] = await Promise.all([tracked, bases === undefined || bases.length > 0 ? git(root, untracked) : Promise.resolve('')]);
  if (status === undefined) return fallbackState(root);
  const entries = status.split('\0').filter((entry) => entry !== '');
  const oid = entries.find((entry) => entry.startsWith('# branch.oid '))?.slice('# branch.oid '.length);
  const changed = entries.some((entry) => !entry.startsWith('# '));
  return { head: oid === undefined || oid === '(initial)' ? null : oid, dirty: changed || others === undefined || others.length > 0 };
}

/** Git pathspecs naming exactly these workspace-relative directories or files. */
function pathspecs(bases: readonly string[]): string[] {
  return bases.map((base) => (base === '' ? ':(top)' : `:(top,literal)${base}`));
}

/** When status itself fails: outside a work tree there is nothing to record; inside, the tree is called dirty. */
async function fallbackState(root: string): Promise<GitState | null> {
  const inside = await git(root, ['rev-parse', '--is-inside-work-tree']);
  if (inside?.trim() !== 'true') return null;
  const head = await git(root, ['rev-parse', '--verify', '--quiet', 'HEAD']);
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
  if ((await git(root, ['rev-parse', '--is-inside-work-tree']))?.trim() !== 'true') return 'no_git';
  const target = (await git(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]))?.trim();
  if (!target) return 'no_ref';
  const code = await new Promise<number | null>((resolve) => {
    childProcess().execFile('git', ['merge-base', '--is-ancestor', commit, target], { cwd: root, timeout: 10_000, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } }, (error) =>
      resolve(error ? (typeof error.code === 'number' ? error.code : null) : 0),
    );
  });
  return code === 0 ? 'landed' : 'not_landed';
}
