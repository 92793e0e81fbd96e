import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { digestJson, sha256 } from '../core/digest.js';

/**
 * Where git looks for its hooks is git's answer (`git rev-parse --git-path`,
 * which honours core.hooksPath), and asking costs a process at every Stop.
 * This is what can change that answer without git: the git directory found
 * from the workspace upwards (and a worktree's common directory), the config
 * files git reads (system, global, the repository's, a worktree's), and the
 * environment variables that move them. Its digest, taken beside git's
 * answer at a session's first hook, lets a later look reuse the answer while
 * nothing that could move it changed.
 *
 * null means the answer cannot be reused: a config file includes another
 * (include.path, includeIf: a file this list does not follow), or there is
 * no git directory to start from. Then git is asked, as before.
 */
export function gitConfigPrint(root: string, env: NodeJS.ProcessEnv): string | null {
  const gitDir = findGitDir(root);
  if (gitDir === null) return null;
  const common = readText(join(gitDir.dir, 'commondir'));
  const commonDir = common === null ? gitDir.dir : resolve(gitDir.dir, common.trim());
  const home = env.HOME ?? homedir();
  const xdg = env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, '.config');
  const files = [
    join(commonDir, 'config'),
    join(gitDir.dir, 'config.worktree'),
    join(home, '.gitconfig'),
    join(xdg, 'git', 'config'),
    // Where distributions and installers put git's system config.
    '/etc/gitconfig',
    '/usr/local/etc/gitconfig',
    '/opt/homebrew/etc/gitconfig',
    ...[env.GIT_CONFIG_GLOBAL, env.GIT_CONFIG_SYSTEM, env.GIT_CONFIG].filter((path): path is string => typeof path === 'string' && path !== ''),
  ];
  const digests: [string, string][] = [];
  for (const file of files) {
    const text = readText(file);
    if (text !== null && /include/i.test(text)) return null;
    digests.push([file, text === null ? 'absent' : sha256(text)]);
  }
  const moving = Object.keys(env)
    .filter((name) => name.startsWith('GIT_') || name === 'HOME' || name === 'XDG_CONFIG_HOME')
    .sort()
    .map((name) => [name, env[name] ?? '']);
  return digestJson({ gitDir, commonDir, digests, moving });
}

/** The nearest `.git` from root upwards: a directory, or a file naming one (`gitdir: …`, as worktrees and submodules have). */
function findGitDir(root: string): { readonly at: string; readonly dir: string } | null {
  for (let dir = root; ; dir = dirname(dir)) {
    const at = join(dir, '.git');
    const kind = kindOf(at);
    if (kind === 'dir') return { at, dir: at };
    if (kind === 'file') {
      const named = /^gitdir:\s*(.+?)\s*$/m.exec(readText(at) ?? '');
      return named ? { at, dir: resolve(dir, named[1]!) } : null;
    }
    if (dirname(dir) === dir) return null;
  }
}

function kindOf(path: string): 'dir' | 'file' | null {
  try {
    const stat = statSync(path);
    return stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : null;
  } catch {
    return null;
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}
