import { childProcess } from '../core/builtins.js';
import { isolatedGit, SAFE_GIT_OPTIONS } from '../core/git-command.js';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { GitTreeOp, PatchSource, TreeQuery } from './shell/git.js';
import { patchFilePaths } from './shell/patch.js';

/** A patch larger than this is not read: its paths are not known, and the call is left to the stop. */
const MAX_PATCH_BYTES = 32 * 1024 * 1024;

/**
 * The absolute paths a git command that rewrites the work tree wholesale
 * would change, asked of git itself before it runs (read-only commands), or
 * null when that cannot be told (no repository, a revision git does not
 * know, git pull, a patch on a pipe): the call is then left to the stop,
 * which judges by result.
 *
 * The repository's own configuration could bend what git prints (a
 * diff.relative, an fsmonitor), so the options that matter are fixed here.
 */
export function gitTreePaths(op: GitTreeOp): string[] | null {
  if (op.dir === null) return null;
  const dir = op.dir;
  const top = git(dir, ['rev-parse', '--show-toplevel'])?.trim() ?? null;
  const found: string[] = [];
  for (const query of op.queries) {
    const paths = answer(query, dir, top);
    if (paths === null) return null;
    found.push(...paths);
  }
  return [...new Set(found)];
}

function answer(query: TreeQuery, dir: string, top: string | null): string[] | null {
  if (query.kind === 'unknown') return null;
  if (query.kind === 'patch') {
    const text = patchText(query.source);
    // Outside a repository git apply is a better `patch`: paths are read from where it runs.
    return text === null ? null : patchFilePaths(text, query.strip, query.directory).map((path) => resolve(top ?? dir, path));
  }
  if (top === null) return null;
  const listed = (out: string | null) =>
    out === null
      ? null
      : out
          .split('\0')
          .filter(Boolean)
          .map((path) => resolve(top, path));
  switch (query.kind) {
    case 'diff':
      return listed(git(dir, ['diff', '--name-only', '--no-renames', '--no-relative', '--no-ext-diff', '--no-textconv', '-z', ...query.args]));
    case 'log':
      return listed(
        git(dir, ['log', '--no-walk=unsorted', '--format=', '--name-only', '--no-renames', '--diff-merges=first-parent', '-z', ...query.args, '--']),
      );
    case 'ls': {
      // ls-files lists from where it runs; with no pathspec, the stash or switch reaches the whole tree.
      const dashes = query.args.indexOf('--');
      const args = dashes < 0 || dashes === query.args.length - 1 ? [...query.args.filter((arg) => arg !== '--'), '--', ':/'] : [...query.args];
      return listed(git(dir, ['ls-files', '--full-name', '-z', ...args]));
    }
    case 'tree':
      // A stash without untracked files has no third parent: nothing to add.
      return listed(git(dir, ['ls-tree', '-r', '--full-tree', '--name-only', '-z', query.rev])) ?? [];
  }
}

function patchText(source: PatchSource): string | null {
  if (source.kind === 'text') return source.text;
  try {
    const stat = statSync(source.path);
    if (!stat.isFile() || stat.size > MAX_PATCH_BYTES) return null;
    return readFileSync(source.path, 'utf8');
  } catch {
    return null;
  }
}

/**
 * One read-only git command's stdout, or null when it fails. Git must run
 * no program the repository names (core/git-command.ts). Reading the index,
 * trees and history, the options SAFE_GIT_OPTIONS switch off are all it
 * could run; a diff against the work tree compares content, which runs a
 * clean or process filter the repository defines for racily clean files, so
 * that one runs with none of the repository's configuration (which costs
 * `@{upstream}` and the like, which it never names).
 */
function git(cwd: string, args: readonly string[]): string | null {
  const isolated = comparesWorkTree(args) ? isolatedGit(cwd, process.env) : undefined;
  if (isolated === null) return null;
  try {
    return childProcess().execFileSync('git', isolated ? isolated.args(args) : [...SAFE_GIT_OPTIONS, ...args], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
      maxBuffer: 64 * 1024 * 1024,
      env: isolated?.env ?? { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat' },
    });
  } catch {
    return null;
  } finally {
    isolated?.close();
  }
}

/** `git diff` with fewer than two revisions (and no `A...B`) compares the work tree's content. */
function comparesWorkTree(args: readonly string[]): boolean {
  if (args[0] !== 'diff') return false;
  const end = args.indexOf('--');
  const revs = args.slice(1, end < 0 ? args.length : end).filter((arg) => !arg.startsWith('-'));
  return revs.length < 2 && !revs.some((rev) => rev.includes('..'));
}
