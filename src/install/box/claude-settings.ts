import { readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { claudeSettingsPath } from '../../clients/claude-code.js';

/** One of Claude Code's settings files, as read: its scope, where it is, and its object (null when absent or not valid JSON). */
export interface SettingsSource {
  readonly scope: 'user' | 'project' | 'local' | 'managed';
  readonly path: string;
  readonly value: Readonly<Record<string, unknown>> | null;
}

/** Where Claude Code reads managed (organisation) settings: managed-settings.json and the drop-ins of managed-settings.d/. */
export function managedSettingsDir(platform: NodeJS.Platform = process.platform): string | null {
  if (platform === 'linux') return '/etc/claude-code';
  if (platform === 'darwin') return '/Library/Application Support/ClaudeCode';
  return null;
}

/**
 * Claude Code's settings files in the order it merges them, lowest first:
 * the user's, the project's, the local ones, then the managed ones (which
 * a person's files cannot override). A file that is not valid JSON is
 * ignored by Claude Code, so it reads here as absent. Flags given at
 * launch (`--settings`, `--setting-sources`) cannot be seen from a file.
 */
export function claudeSettingsSources(root: string | null, env: NodeJS.ProcessEnv, managedDir: string | null = managedSettingsDir()): SettingsSource[] {
  const sources: SettingsSource[] = [{ scope: 'user', path: claudeSettingsPath('user', null, env), value: null }];
  if (root !== null) {
    sources.push({ scope: 'project', path: join(root, '.claude', 'settings.json'), value: null });
    sources.push({ scope: 'local', path: join(root, '.claude', 'settings.local.json'), value: null });
  }
  if (managedDir !== null) {
    sources.push({ scope: 'managed', path: join(managedDir, 'managed-settings.json'), value: null });
    const dropIns = join(managedDir, 'managed-settings.d');
    for (const name of listing(dropIns)
      .filter((n) => n.endsWith('.json'))
      .sort())
      sources.push({ scope: 'managed', path: join(dropIns, name), value: null });
  }
  return sources.map((source) => ({ ...source, value: readObject(source.path) }));
}

/** The value in force at a key path: the last source (highest precedence) that sets it. */
export function settingInForce(sources: readonly SettingsSource[], at: readonly string[]): unknown {
  let found: unknown;
  for (const source of sources) {
    const value = valueAt(source.value, at);
    if (value !== undefined) found = value;
  }
  return found;
}

/** A list setting as Claude Code merges it (the lists of every source, joined), each entry with the source it came from. */
export function listInForce(sources: readonly SettingsSource[], at: readonly string[]): { readonly entry: string; readonly source: SettingsSource }[] {
  return sources.flatMap((source) => {
    const value = valueAt(source.value, at);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string').map((entry) => ({ entry, source })) : [];
  });
}

/**
 * A sandbox filesystem path as Claude Code resolves it (read from and
 * checked with 2.1.332): `//x` and `/x` are absolute, `~/x` is under the
 * home directory, and anything else is relative to the directory of the
 * source: the workspace the session runs in for the project, local and
 * managed settings, but Claude Code's config directory (~/.claude,
 * CLAUDE_CONFIG_DIR) for the user's, so a relative entry in the user's
 * settings never names a path of the workspace. A trailing `/**` means the
 * directory.
 */
export function sandboxPath(entry: string, source: Pick<SettingsSource, 'scope' | 'path'>, root: string | null, env: NodeJS.ProcessEnv): string | null {
  const trimmed = entry.replace(/\/\*\*$/, '').replace(/\/$/, '');
  if (trimmed.startsWith('~/')) return join(env.HOME ?? homedir(), trimmed.slice(2));
  if (isAbsolute(trimmed)) return resolve(trimmed);
  if (source.scope === 'user') return resolve(dirname(source.path), trimmed);
  return root === null ? null : resolve(root, trimmed);
}

/**
 * The inverse, for a file a team commits (the project's settings): a path
 * of the workspace as an entry relative to it (which Claude Code resolves
 * against the workspace the session runs in, wherever the clone is), a path
 * under the home directory as `~/...` (the same for every person whose
 * VOUCH_HOME is at its default place), anything else absolute.
 */
export function projectSandboxEntry(path: string, root: string, env: NodeJS.ProcessEnv): string {
  const inside = beneath(root, path);
  if (inside !== null) return inside;
  const underHome = beneath(env.HOME ?? homedir(), path);
  return underHome === null ? path : `~/${underHome}`;
}

/** `path` relative to `dir`, with forward slashes, when it is strictly beneath it; null otherwise. */
function beneath(dir: string, path: string): string | null {
  const rel = relative(dir, path);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
}

function valueAt(root: unknown, at: readonly string[]): unknown {
  let node = root;
  for (const key of at) node = typeof node === 'object' && node !== null && !Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

function readObject(path: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function listing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
