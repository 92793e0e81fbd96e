import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse } from 'smol-toml';
import { codexConfigPath } from './codex-box.js';

/** One of Codex's config layers, as read: its scope, where it is, and its table (null when absent or not valid TOML). */
export interface CodexLayer {
  readonly scope: 'system' | 'user' | 'project' | 'managed';
  readonly path: string;
  readonly value: Readonly<Record<string, unknown>> | null;
}

/** Where Codex reads the machine's config (config.toml, and managed_config.toml, which wins over every person's file). */
export const CODEX_SYSTEM_DIR = '/etc/codex';

/**
 * Codex's config layers in the order it merges them, lowest first: the
 * machine's, the user's ($CODEX_HOME/config.toml), the project's
 * (.codex/config.toml, read only when Codex trusts the project), then the
 * managed one. Launch flags (`-c`, `--sandbox`, `-P`, `-p`,
 * `--dangerously-bypass-approvals-and-sandbox`) cannot be seen from a file.
 */
export function codexLayers(root: string, env: NodeJS.ProcessEnv, systemDir: string = CODEX_SYSTEM_DIR): CodexLayer[] {
  const layers: Omit<CodexLayer, 'value'>[] = [
    { scope: 'system', path: join(systemDir, 'config.toml') },
    { scope: 'user', path: codexConfigPath('user', null, env) },
    { scope: 'project', path: codexConfigPath('project', root, env) },
    { scope: 'managed', path: join(systemDir, 'managed_config.toml') },
  ];
  return layers.map((layer) => ({ ...layer, value: readTable(layer.path) }));
}

/** The value in force at a key path: the last layer (highest precedence) that sets it. */
export function codexSetting(layers: readonly CodexLayer[], at: readonly string[]): unknown {
  let found: unknown;
  for (const layer of layers) {
    const value = valueAt(layer.value, at);
    if (value !== undefined) found = value;
  }
  return found;
}

/** Whether the user's config trusts the project at `root` (or a folder above it): Codex reads a project's .codex/ only then. */
export function codexTrusts(layers: readonly CodexLayer[], root: string): boolean {
  const projects = codexSetting(
    layers.filter((layer) => layer.scope !== 'project'),
    ['projects'],
  );
  if (typeof projects !== 'object' || projects === null) return false;
  for (let dir = root; ; dir = dirname(dir)) {
    const entry = (projects as Record<string, unknown>)[dir];
    if (typeof entry === 'object' && entry !== null && (entry as Record<string, unknown>).trust_level === 'trusted') return true;
    if (dirname(dir) === dir) return false;
  }
}

/** A filesystem access level of a permission profile. */
export type CodexAccess = 'write' | 'read' | 'none';

/** The rules of Codex's built-in profiles that matter here (its `:workspace` keeps .git and .codex read-only itself). */
const BUILT_IN: Readonly<Record<string, Readonly<Record<string, unknown>> | 'unconfined'>> = {
  ':read-only': { ':root': 'read' },
  ':workspace': { ':root': 'read', ':project_roots': { '.': 'write', '.git': 'read', '.codex': 'read' }, ':slash_tmp': 'write', ':tmpdir': 'write' },
  ':danger-full-access': 'unconfined',
  ':danger-no-sandbox': 'unconfined',
};

/** The filesystem rules of the profile `name` in force: null when no layer defines it; 'unconfined' for full access. */
export function profileRules(layers: readonly CodexLayer[], name: string): Readonly<Record<string, unknown>> | 'unconfined' | null {
  if (name.startsWith(':')) return BUILT_IN[name] ?? null;
  const defined = codexSetting(layers, ['permissions', name]);
  if (typeof defined !== 'object' || defined === null) return null;
  const filesystem = codexSetting(layers, ['permissions', name, 'filesystem']);
  return typeof filesystem === 'object' && filesystem !== null ? (filesystem as Record<string, unknown>) : {};
}

/**
 * What a profile's rules give a path (absolute), as Codex resolves them
 * (checked with 0.171.0): `:root` is /, `:project_roots` the project root
 * (the nearest folder above holding .git, else the workspace), `:slash_tmp`
 * /tmp, `:tmpdir` $TMPDIR, `~/` the home; a table under a key holds paths
 * relative to it. The rule of the longest matching path wins; at equal
 * length the narrower access. vouch does not match globs: one that grants
 * write makes everything beneath its base writable, whatever else says so;
 * other globs are left out. No rule: not writable.
 */
export function accessOf(rules: Readonly<Record<string, unknown>>, path: string, root: string, env: NodeJS.ProcessEnv): CodexAccess | null {
  let best: { readonly length: number; readonly access: CodexAccess } | null = null;
  let globWrite = false;
  const consider = (base: string, access: unknown, glob: boolean) => {
    if (access !== 'write' && access !== 'read' && access !== 'none') return;
    if (path !== base && !path.startsWith(base === '/' ? '/' : `${base}/`)) return;
    if (glob) {
      globWrite ||= access === 'write';
      return;
    }
    if (best === null || base.length > best.length || (base.length === best.length && rank(access) < rank(best.access))) best = { length: base.length, access };
  };
  for (const [key, value] of Object.entries(rules)) {
    const base = baseOf(key, root, env);
    if (base === null) continue;
    if (typeof value === 'string') consider(base, value, false);
    else if (typeof value === 'object' && value !== null) {
      for (const [sub, access] of Object.entries(value as Record<string, unknown>)) {
        const glob = /[*?[\]{}]/.test(sub);
        const at = glob ? sub.slice(0, sub.search(/[*?[\]{}]/)).replace(/\/[^/]*$/, '') : sub;
        consider(at === '' || at === '.' ? base : resolve(base, at), access, glob);
      }
    }
  }
  if (globWrite) return 'write';
  return (best as { readonly access: CodexAccess } | null)?.access ?? null;
}

function rank(access: CodexAccess): number {
  return access === 'none' ? 0 : access === 'read' ? 1 : 2;
}

function baseOf(key: string, root: string, env: NodeJS.ProcessEnv): string | null {
  if (key === ':root') return '/';
  if (key === ':project_roots') return projectRoot(root);
  if (key === ':slash_tmp') return '/tmp';
  if (key === ':tmpdir') return env.TMPDIR ? resolve(env.TMPDIR) : null;
  if (key.startsWith('~/')) return join(env.HOME || homedir(), key.slice(2));
  if (isAbsolute(key)) return resolve(key);
  return null;
}

/** Codex's project root for a workspace: the nearest folder at or above it holding .git (its default project_root_markers), else the workspace. */
export function projectRoot(root: string): string {
  for (let dir = root; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return root;
  }
}

function valueAt(root: unknown, at: readonly string[]): unknown {
  let node = root;
  for (const key of at) node = typeof node === 'object' && node !== null && !Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

function readTable(path: string): Record<string, unknown> | null {
  try {
    return parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}
