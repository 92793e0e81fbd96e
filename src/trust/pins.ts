import { nodeCrypto } from '../core/builtins.js';
import { closeSync, fstatSync, openSync, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { sha256, type Sha256 } from '../core/digest.js';
import { resolveExecutable } from '../runner/executable.js';
import type { CheckDef } from '../spec/model.js';
import { inputPinsFor, type InputPin } from './input-pins.js';
import { Snapshot } from '../scope/snapshot.js';
import { npmConfigFiles, userConfigPaths } from './program-configs.js';

/**
 * What runs is the person's choice. When a person allows a spec, vouch pins,
 * beside its hash, what each check's command resolves to (on the person's
 * PATH, which checks then run with, whoever calls vouch) with the file's
 * SHA-256, and the digests of the files that configure how the checks' tools
 * run (.npmrc, pip.conf, pytest.ini, ...). A PATH an agent put in front, a
 * replaced binary, or a tool config that appeared, changed or went away
 * makes the check UNKNOWN until a person allows again, exactly as an edited
 * vouch.yaml does. Only digests are kept, never contents.
 */
export interface Pins {
  /** The PATH the person allowed with: commands resolve on it, and checks receive it. */
  readonly path: string;
  /** What each check's argv[0] (or /bin/sh for shell: true) resolved to, by check id. */
  readonly executables: Readonly<Record<string, ExecutablePin>>;
  /** Absolute path of every tool config looked at, to its SHA-256, or "absent". */
  readonly tool_configs: Readonly<Record<string, string>>;
  /**
   * What each check's `inputs:` matched, by check id (input-pins.ts); only
   * checks that declare inputs. Absent from records written before the field.
   */
  readonly inputs?: Readonly<Record<string, InputPin>>;
  /**
   * npm's builtin and global npmrc as the allowed npm resolved them
   * (program-configs.ts): pinned, in `tool_configs`, for every check that
   * runs package scripts. Absent from records written before the field:
   * such a check is then UNKNOWN until allowed again.
   */
  readonly program_configs?: readonly string[];
}

export interface ExecutablePin {
  /** The command as the spec writes it. */
  readonly command: string;
  /** Where it resolved, symlinks resolved; null when it did not resolve. */
  readonly path: string | null;
  readonly sha256: Sha256 | null;
  /** The file's identity when hashed (dev:ino:size:mtime:ctime in ns); an equal identity later means the same bytes. */
  readonly identity: string | null;
}

/**
 * Files that change how a check's tool runs without being code the check
 * covers: looked up in the check's cwd and every directory above it up to
 * the workspace root, as the tools themselves do. pytest reads the first of
 * pytest.toml, .pytest.toml, pytest.ini, .pytest.ini, pyproject.toml,
 * tox.ini, setup.cfg it finds (an `addopts = "--co"` makes it collect and
 * exit 0); pip, npm, yarn, pnpm and bun theirs.
 */
export const TOOL_CONFIG_NAMES: readonly string[] = [
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pnpmfile.cjs',
  'bunfig.toml',
  'pip.conf',
  'pytest.toml',
  '.pytest.toml',
  'pytest.ini',
  '.pytest.ini',
  'pyproject.toml',
  'setup.cfg',
  'tox.ini',
];

/**
 * The programs that run what package.json's scripts say (`npm test` runs
 * `scripts.test`, whatever it is): for a check that starts one, package.json
 * on its cwd chain is pinned as a tool config too. Judged by the words of
 * its command (every argv element, or the script of `shell: true`, split at
 * blanks and shell operators): `npm test`, `sh -c "npm test"`, `env CI=1
 * npx vitest` all count. The simplest rule that holds; a program that
 * reaches npm some other way (a Makefile, a script file) names
 * package.json in `inputs:`.
 */
const MANIFEST_RUNNERS: ReadonlySet<string> = new Set(['npm', 'npx', 'yarn', 'yarnpkg', 'pnpm', 'pnpx', 'corepack', 'bun', 'bunx']);

/** Whether a check's command runs package.json's scripts (see MANIFEST_RUNNERS). */
export function runsPackageScripts(check: Pick<CheckDef, 'run' | 'shell'>): boolean {
  const words = check.run.flatMap((arg) => arg.split(/[\s;&|()<>`'"$]+/));
  return words.some((word) => MANIFEST_RUNNERS.has(word.slice(word.lastIndexOf('/') + 1)));
}

/** Pins for a spec's checks, as they resolve for the person allowing it now. */
export async function pinsFor(
  checks: readonly CheckDef[],
  root: string,
  extraConfigs: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<Pins & { readonly inputs: Readonly<Record<string, InputPin>> }> {
  const path = env.PATH ?? '/usr/local/bin:/usr/bin:/bin';
  const executables: Record<string, ExecutablePin> = {};
  for (const check of checks) executables[check.id] = pinOf(check, root, path);
  const inputs = await inputPinsFor(new Snapshot(root, { readStart: new Date() }), checks);
  // npm is asked where its configuration lives only when a check runs it: the one program spawned at allow.
  const programConfigs = checks.some(runsPackageScripts) ? npmConfigFiles(root, path, env) : [];
  const where = { root, extraConfigs, env, programConfigs };
  return { path, executables, tool_configs: configDigests(checks, where), inputs, program_configs: programConfigs };
}

function pinOf(check: CheckDef, root: string, path: string): ExecutablePin {
  const command = commandOf(check);
  const resolved = resolveOn(command, cwdOf(root, check), path);
  if (resolved === null) return { command, path: null, sha256: null, identity: null };
  return { command, path: resolved, ...hashed(resolved) };
}

/** The program a check starts: argv[0], or the shell for shell: true. */
export function commandOf(check: CheckDef): string {
  return check.shell ? '/bin/sh' : check.run[0]!;
}

function cwdOf(root: string, check: CheckDef): string {
  return check.cwd === '.' ? root : join(root, check.cwd);
}

function resolveOn(command: string, cwd: string, path: string): string | null {
  const found = resolveExecutable(command, cwd, path);
  if (found === null) return null;
  try {
    return realpathSync(found);
  } catch {
    return null;
  }
}

/** Why a check's command is not what was allowed, or null when it is. */
export function executableDrift(pins: Pins, check: CheckDef, root: string): string | null {
  const pin = pins.executables[check.id];
  const command = commandOf(check);
  if (!pin || pin.command !== command) return null;
  const now = resolveOn(command, cwdOf(root, check), pins.path);
  if (now !== pin.path) {
    return `${command} resolves to ${now ?? 'nothing'} on the allowed PATH, and resolved to ${pin.path ?? 'nothing'} when vouch.yaml was allowed`;
  }
  if (now === null || pin.sha256 === null) return null;
  if (pin.identity !== null && identityOf(now) === pin.identity) return null;
  const { sha256: digest } = hashed(now);
  return digest === pin.sha256
    ? null
    : `${now} (${command}) is not the file that was allowed: its SHA-256 is ${digest?.slice(0, 16) ?? 'unreadable'}, allowed ${pin.sha256.slice(0, 16)}`;
}

/**
 * The tool configs that differ from the pins, by the check they affect:
 * a config in a directory on the check's cwd chain, under HOME or the
 * system's, or of the npm it runs.
 */
export function toolConfigDrift(
  pins: Pins,
  checks: readonly CheckDef[],
  root: string,
  extraConfigs: readonly string[],
  env: NodeJS.ProcessEnv,
): Map<string, string[]> {
  const drift = new Map<string, string[]>();
  const where = { root, extraConfigs, env, programConfigs: pins.program_configs ?? [] };
  const now = configDigests(checks, where);
  for (const check of checks) {
    const changed = configPathsOf(check, where).filter((path) => (pins.tool_configs[path] ?? 'absent') !== (now[path] ?? 'absent'));
    // A record from before npm's own files were pinned knows nothing of them: nothing of them was allowed.
    if (pins.program_configs === undefined && runsPackageScripts(check)) changed.push("npm's builtin and global npmrc (not pinned yet)");
    if (changed.length > 0) drift.set(check.id, changed);
  }
  return drift;
}

/** The changed tool configs, in one line for a receipt or a status. */
export function toolConfigDetail(paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(', ') + (paths.length > 3 ? ` and ${paths.length - 3} more` : '');
  return `tool config ${shown} changed (appeared, changed or went away) since vouch.yaml was allowed`;
}

/** Where the configs of a spec's checks are looked for. */
interface ConfigPlaces {
  readonly root: string;
  readonly extraConfigs: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** npm's own files, as pinned (program-configs.ts). */
  readonly programConfigs: readonly string[];
}

function configDigests(checks: readonly CheckDef[], where: ConfigPlaces): Record<string, string> {
  const digests: Record<string, string> = {};
  for (const check of checks) for (const path of configPathsOf(check, where)) digests[path] ??= digestOrAbsent(path);
  return digests;
}

/** Where a check's tools look for their configs: each name on the cwd chain, the user's and the system's, npm's own. */
function configPathsOf(check: CheckDef, { root, extraConfigs, env, programConfigs }: ConfigPlaces): string[] {
  const home = env.HOME ?? homedir();
  const manifests = runsPackageScripts(check);
  const names = [...TOOL_CONFIG_NAMES, ...(manifests ? ['package.json'] : []), ...extraConfigs.filter((name) => !name.startsWith('~/'))];
  const paths: string[] = [];
  for (let dir = cwdOf(root, check); ; dir = dirname(dir)) {
    for (const name of names) paths.push(join(dir, name));
    if (dir === root || dirname(dir) === dir) break;
  }
  paths.push(...userConfigPaths(check, env), ...extraConfigs.filter((name) => name.startsWith('~/')).map((name) => join(home, name.slice(2))));
  if (manifests) paths.push(...programConfigs);
  return paths;
}

function digestOrAbsent(path: string): string {
  try {
    return sha256(readFileSync(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'absent' : `unreadable:${code ?? 'error'}`;
  }
}

/** A file's SHA-256 and, when its timestamps are settled, its identity (the stat cache's racy rule: 3 s). */
function hashed(path: string): { sha256: Sha256 | null; identity: string | null } {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const before = fstatSync(fd, { bigint: true });
    const hash = nodeCrypto().createHash('sha256');
    const buffer = Buffer.allocUnsafe(1 << 20);
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0;) hash.update(buffer.subarray(0, n));
    const settled = BigInt(Date.now()) * 1_000_000n - 3_000_000_000n;
    const newest = before.ctimeNs > before.mtimeNs ? before.ctimeNs : before.mtimeNs;
    return { sha256: hash.digest('hex') as Sha256, identity: newest < settled ? identityText(before) : null };
  } catch {
    return { sha256: null, identity: null };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function identityOf(path: string): string | null {
  try {
    return identityText(statSync(path, { bigint: true }));
  } catch {
    return null;
  }
}

function identityText(stat: { dev: bigint; ino: bigint; size: bigint; mtimeNs: bigint; ctimeNs: bigint }): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
}
