import { lstatSync, mkdtempSync, readFileSync, rmdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/*
 * Git never runs a program a repository names. The gate and verify ask git
 * about a work tree the agent can write, and git runs programs its
 * configuration names: core.fsmonitor when it reads the index, a clean or
 * process filter (`filter.x.clean` with `* filter=x` in .gitattributes) when
 * `git status` re-hashes a racily clean file, hooks (post-index-change when
 * it refreshes the index), an external diff or textconv, a pager. Each would
 * run outside the agent's sandbox, as the gate, at the moment the gate looks.
 *
 * Switching each off with `-c` is not enough for filters: their names are
 * whatever the repository's config says, and a config rewritten between
 * reading the names and running git would win. So git is run with none of
 * the repository's configuration at all: GIT_DIR names the repository's own
 * git dir (HEAD, index), GIT_COMMON_DIR a fresh directory whose `config`
 * says only the repository format, and whose objects, refs, packed-refs,
 * shallow and info are links to the real ones; the system and global
 * configs are off (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null). A
 * filter, textconv or diff driver named in .gitattributes then has no
 * definition, and nothing else names a program. The `-c` options below say
 * the same again, on the command line, where nothing can override them.
 *
 * What this loses: the repository's own settings of how content compares
 * (core.autocrlf, core.filemode=false, a filter that normalises), and the
 * user's global excludes file, so a tree can read dirty where plain `git
 * status` says clean. The dirty flag is a record, never a verdict.
 */

/** Where a work tree's repository lives. */
export interface Repository {
  /** The work tree's top directory. */
  readonly top: string;
  /** The git dir of this work tree (a linked worktree's own, under the common one). */
  readonly gitDir: string;
  /** Where objects, refs and config are (the git dir itself, for a plain clone). */
  readonly commonDir: string;
}

/** The repository `dir` is in (walking up to the nearest `.git`), or null outside one. */
export function findRepository(dir: string): Repository | null {
  for (let at = resolve(dir); ; at = dirname(at)) {
    const dotGit = join(at, '.git');
    let isDir: boolean | undefined;
    try {
      const stat = lstatSync(dotGit, { throwIfNoEntry: false });
      isDir = stat?.isDirectory() ? true : stat?.isFile() ? false : undefined;
    } catch {
      isDir = undefined;
    }
    if (isDir === true) return withCommonDir(at, dotGit);
    if (isDir === false) {
      // A linked worktree or a submodule: `gitdir: <path>`.
      const named = /^gitdir: (.+)$/m.exec(readText(dotGit) ?? '')?.[1]?.trim();
      return named === undefined ? null : withCommonDir(at, resolve(at, named));
    }
    if (dirname(at) === at) return null;
  }
}

function withCommonDir(top: string, gitDir: string): Repository {
  const common = readText(join(gitDir, 'commondir'))?.trim();
  return { top, gitDir, commonDir: common ? resolve(gitDir, common) : gitDir };
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Given on every call, first: what they switch off cannot be turned back on by any config. */
export const SAFE_GIT_OPTIONS: readonly string[] = [
  '--no-pager',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.pager=cat',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'diff.external=',
  '-c',
  'diff.relative=false',
  '-c',
  'log.showSignature=false',
  '-c',
  'status.submoduleSummary=false',
];

/** A git invocation that reads none of the repository's configuration; close() removes its directory. */
export interface IsolatedGit {
  readonly repository: Repository;
  /** SAFE_GIT_OPTIONS, then `args`. */
  args(args: readonly string[]): string[];
  /** The environment to run git with. */
  readonly env: Record<string, string>;
  close(): void;
}

/**
 * An isolated git for the repository `dir` is in: null outside one, or when
 * no directory could be made for it (the caller then records nothing as
 * known). `base` is the environment to start from: every GIT_* variable of
 * it is dropped (a GIT_DIR or GIT_CONFIG_PARAMETERS from a hook that ran
 * vouch must not steer it).
 */
export function isolatedGit(dir: string, base: NodeJS.ProcessEnv): IsolatedGit | null {
  const repository = findRepository(dir);
  if (repository === null) return null;
  let common: string;
  try {
    common = mkdtempSync(join(tmpdir(), 'vouch-git-'));
    writeFileSync(join(common, 'config'), formatConfig(repository.commonDir));
    for (const name of LINKED) symlinkSync(join(repository.commonDir, name), join(common, name));
  } catch {
    return null;
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined && !name.startsWith('GIT_') && name !== 'PAGER') env[name] = value;
  Object.assign(env, {
    GIT_DIR: repository.gitDir,
    GIT_COMMON_DIR: common,
    GIT_WORK_TREE: repository.top,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
  });
  return {
    repository,
    env,
    args: (args) => [...SAFE_GIT_OPTIONS, ...args],
    close: () => removeCommon(common),
  };
}

/** What the isolated common dir links to in the real one. */
const LINKED = ['objects', 'refs', 'packed-refs', 'shallow', 'info'];

/**
 * Removes an isolated common dir: its known entries one by one, then the
 * directory. A recursive rmSync would do the same, but loads and runs
 * Node's JavaScript rimraf on every git call of a hook or a verify; it is
 * only the fallback, for a directory holding anything else.
 */
function removeCommon(common: string): void {
  try {
    for (const name of ['config', ...LINKED]) unlinkSync(join(common, name));
    rmdirSync(common);
  } catch {
    rmSync(common, { recursive: true, force: true });
  }
}

/**
 * The config of the isolated common dir: the repository format and object
 * format only (a sha256 repository cannot be read as sha1). Nothing else of
 * the real config is read, so nothing in it can name a program.
 */
function formatConfig(commonDir: string): string {
  const text = readText(join(commonDir, 'config')) ?? '';
  let section = '';
  let objectFormat: string | undefined;
  for (const line of text.split('\n')) {
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)/.exec(line);
    if (header) section = header[1]!.toLowerCase();
    const entry = /^\s*objectformat\s*=\s*([A-Za-z0-9]+)\s*$/i.exec(line);
    if (section === 'extensions' && entry) objectFormat = entry[1]!.toLowerCase();
  }
  return objectFormat === undefined || objectFormat === 'sha1'
    ? '[core]\n\trepositoryformatversion = 0\n\tbare = false\n'
    : `[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\tobjectformat = ${objectFormat}\n`;
}
