import { execFile } from 'node:child_process';

export interface GitState {
  readonly head: string | null;
  readonly dirty: boolean;
}

function git(root: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd: root, timeout: 10_000, maxBuffer: 64 << 20, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } }, (error, stdout) =>
      resolve(error ? undefined : stdout),
    );
  });
}

/**
 * HEAD and the dirty flag, for the record. Null when the workspace is not in
 * a git work tree or git is not installed: a receipt never invents a commit.
 */
export async function gitState(root: string): Promise<GitState | null> {
  const inside = await git(root, ['rev-parse', '--is-inside-work-tree']);
  if (inside?.trim() !== 'true') return null;
  const [head, status] = await Promise.all([
    git(root, ['rev-parse', '--verify', '--quiet', 'HEAD']),
    git(root, ['status', '--porcelain', '-z', '--untracked-files=normal']),
  ]);
  return { head: head?.trim() || null, dirty: status === undefined ? true : status.length > 0 };
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
    execFile('git', ['merge-base', '--is-ancestor', commit, target], { cwd: root, timeout: 10_000, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } }, (error) =>
      resolve(error ? (typeof error.code === 'number' ? error.code : null) : 0),
    );
  });
  return code === 0 ? 'landed' : 'not_landed';
}
