import { childProcess } from '../core/builtins.js';
import { isolatedGit } from '../core/git-command.js';

/** What changed since a ref: workspace-relative paths, or why it cannot be told. */
export type ChangedSince = { readonly kind: 'ok'; readonly paths: readonly string[] } | { readonly kind: 'no_ref' } | { readonly kind: 'no_git' };

function run(args: string[], root: string, env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    childProcess().execFile('git', args, { cwd: root, timeout: 30_000, maxBuffer: 256 << 20, env }, (error, stdout) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: String(stdout) }),
    );
  });
}

/**
 * The paths, relative to `root`, that differ between `ref` and the work
 * tree (`git diff --name-only REF`, renames as a delete and an add), and the
 * untracked files that are not ignored: what `verify --since` selects
 * checks by. git runs isolated (core/git-command.ts): nothing the
 * repository's config names runs.
 */
export async function changedSince(root: string, ref: string): Promise<ChangedSince> {
  if (ref.startsWith('-')) return { kind: 'no_ref' };
  const isolated = isolatedGit(root, process.env);
  if (isolated === null) return { kind: 'no_git' };
  try {
    const target = await run(isolated.args(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]), root, isolated.env);
    if (target.code !== 0 || target.stdout.trim() === '') return { kind: 'no_ref' };
    const [diff, others] = await Promise.all([
      run(isolated.args(['diff', '--name-only', '-z', '--no-renames', '--relative', target.stdout.trim(), '--']), root, isolated.env),
      run(isolated.args(['ls-files', '-z', '--others', '--exclude-standard']), root, isolated.env),
    ]);
    if (diff.code !== 0 || others.code !== 0) return { kind: 'no_git' };
    const paths = new Set([...diff.stdout.split('\0'), ...others.stdout.split('\0')].filter((path) => path !== ''));
    return { kind: 'ok', paths: [...paths].sort() };
  } finally {
    isolated.close();
  }
}
