import { readFileSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { childProcess } from '../core/builtins.js';
import { checkEnvironment } from '../runner/env.js';
import { resolveExecutable } from '../runner/executable.js';
import type { CheckDef } from '../spec/model.js';

/*
 * The programs' own configuration outside the workspace: files a check's
 * tools read wherever it runs (a global npmrc with script-shell=/bin/true
 * turns every `npm test` into a no-op). They are pinned at `vouch allow`
 * like ~/.npmrc: found then, hashed then and at every status, never by
 * running anything at status time.
 */

/**
 * npm's builtin and global npmrc, as the npm on the allowed PATH resolves
 * them: the builtin one beside npm's own package (`<npm>/npmrc`), the
 * global one where `npm config get globalconfig` says (`<prefix>/etc/npmrc`,
 * the prefix itself possibly set in ~/.npmrc or the builtin file). npm is
 * asked once, here, with the environment a check gets; should it not
 * answer, the global file is taken where npm puts it by default (beside
 * the node that runs it). Empty when no npm is on the PATH.
 */
export function npmConfigFiles(root: string, path: string, env: NodeJS.ProcessEnv): string[] {
  const npm = resolveExecutable('npm', root, path);
  if (npm === null) return [];
  const files: string[] = [];
  const own = packageRoot(npm, 'npm');
  if (own !== undefined) files.push(join(own, 'npmrc'));
  const global = askNpm(npm, root, checkEnvironment(env, [], { PATH: path })) ?? defaultGlobal(root, path);
  if (global !== undefined) files.push(global);
  return [...new Set(files)];
}

function askNpm(npm: string, cwd: string, env: Record<string, string>): string | undefined {
  try {
    const out = childProcess().execFileSync(npm, ['config', 'get', 'globalconfig'], {
      cwd,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 30_000,
    });
    const answer = out.trim();
    return answer.startsWith('/') ? answer : undefined;
  } catch {
    return undefined;
  }
}

/** npm's default global prefix is the directory above the node binary's own: `<prefix>/etc/npmrc`. */
function defaultGlobal(root: string, path: string): string | undefined {
  const node = resolveExecutable('node', root, path);
  if (node === null) return undefined;
  try {
    return join(dirname(dirname(realpathSync(node))), 'etc', 'npmrc');
  } catch {
    return undefined;
  }
}

/** The directory of the package named `name` that holds a program (its bin may be a link into it). */
function packageRoot(program: string, name: string): string | undefined {
  let dir: string;
  try {
    dir = dirname(realpathSync(program));
  } catch {
    return undefined;
  }
  for (let i = 0; i < 4 && dirname(dir) !== dir; i++, dir = dirname(dir)) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === name) return dir;
    } catch {
      // Not the package's root: keep looking up.
    }
  }
  return undefined;
}

/**
 * The user's and the system's config files of pip, npm, yarn and pnpm,
 * where the check's tools look for them: under HOME, under
 * XDG_CONFIG_HOME and XDG_CONFIG_DIRS when the check is given them (its
 * `env:` lists them; else the defaults ~/.config and /etc/xdg), and pip's
 * PIP_CONFIG_FILE likewise. Absolute paths.
 */
export function userConfigPaths(check: Pick<CheckDef, 'env'>, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? homedir();
  const given = (name: string) => (check.env.includes(name) && env[name] !== undefined && env[name] !== '' ? env[name] : undefined);
  const configHome = given('XDG_CONFIG_HOME') ?? join(home, '.config');
  const configDirs = (given('XDG_CONFIG_DIRS') ?? '/etc/xdg').split(delimiter).filter((dir) => dir.startsWith('/'));
  const pipFile = given('PIP_CONFIG_FILE');
  return [
    join(home, '.npmrc'),
    join(home, '.yarnrc'),
    join(home, '.yarnrc.yml'),
    join(configHome, 'pnpm', 'rc'),
    join(configHome, 'pip', 'pip.conf'),
    join(home, '.pip', 'pip.conf'),
    '/etc/pip.conf',
    ...configDirs.map((dir) => join(dir, 'pip', 'pip.conf')),
    ...(pipFile !== undefined && pipFile.startsWith('/') ? [pipFile] : []),
  ];
}
