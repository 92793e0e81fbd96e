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
