import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestJson, sha256 } from '../core/digest.js';
import { scanScope } from '../scope/scan.js';
import { TreeReader } from '../engine/tree-reader.js';
import type { Workspace } from '../workspace/find.js';
import { trustRecordPath } from '../trust/trust.js';
import { gateWiring, gitHookPlace, type GitHookPlace } from '../guard/wiring.js';

/**
 * What an agent session must leave as it found it: the files the spec's
 * protect: globs match (workspace-relative path to SHA-256, or to the reason
 * one could not be read), and the gate's own wiring (absolute path to
 * SHA-256, or "absent"). Compared by content, so a write the guard could not
 * read (a script, a hard link, a git checkout) is caught all the same.
 */
export interface Baseline {
  /** The protect: globs the baseline was taken with; later looks use the same ones. */
  readonly globs: readonly string[];
  readonly protected: Readonly<Record<string, string>>;
  readonly wiring: Readonly<Record<string, string>>;
  /** Where git's hooks were found, and what could move them: a later look asks git again only when that changed. */
  readonly git_hooks?: GitHookPlace;
}

/** What changed since a baseline: workspace-relative protected paths, absolute wiring paths. */
export interface Drift {
  readonly protected: readonly string[];
  readonly wiring: readonly string[];
}

export async function takeBaseline(
  home: string,
  workspace: Workspace,
  globs: readonly string[],
  env: NodeJS.ProcessEnv,
  earlier?: Baseline,
): Promise<Baseline> {
  const gitHooks = gitHookPlace(workspace.root, env, earlier?.git_hooks);
  return {
    globs: [...globs],
    protected: await protectedFiles(home, workspace, globs),
    wiring: wiringDigests(workspace.root, home, env, gitHooks),
    git_hooks: gitHooks,
  };
}

export async function driftSince(home: string, workspace: Workspace, baseline: Baseline, env: NodeJS.ProcessEnv): Promise<Drift> {
  const now = await takeBaseline(home, workspace, baseline.globs, env, baseline);
  return { protected: differing(baseline.protected, now.protected), wiring: differing(baseline.wiring, now.wiring) };
}

async function protectedFiles(home: string, workspace: Workspace, globs: readonly string[]): Promise<Record<string, string>> {
  if (globs.length === 0) return {};
  const reader = new TreeReader({ workspace, home });
  try {
    const scan = await scanScope(reader.snapshot(), { sources: globs, tests: [], artifacts: [], exclude: [], allowMissing: true }, ['source']);
    const files: Record<string, string> = {};
    for (const [path, digest] of scan.manifest.files) files[path] = digest;
    for (const [path, why] of scan.manifest.refused) files[path] = `refused:${why}`;
    for (const problem of scan.problems) files[problem.path] = `problem:${problem.reason}`;
    return files;
  } finally {
    reader.close();
  }
}

/**
 * The gate's wiring as files to compare: every wiring file (hook settings,
 * MCP entries, git's pre-push hook), and of VOUCH_HOME what decides trust
 * here: this workspace's trust record and the public keys vouch trusts.
 */
function wiringDigests(root: string, home: string, env: NodeJS.ProcessEnv, gitHooks: GitHookPlace): Record<string, string> {
  const settings = new Set(
    gateWiring(root, env, gitHooks)
      .filter((entry) => !entry.dir)
      .map((entry) => entry.path),
  );
  // What decides trust is compared whole: the trust record, the public keys.
  const whole = new Set([trustRecordPath(home, root)]);
  for (const name of listing(join(home, 'keys'))) if (name.endsWith('.pub')) whole.add(join(home, 'keys', name));
  const digests: Record<string, string> = {};
  for (const path of [...settings].sort()) digests[path] = path.endsWith('.json') ? wiringDigestOfJson(path) : digestOf(path);
  for (const path of [...whole].sort()) digests[path] = digestOf(path);
  return digests;
}

/**
 * The settings keys that wire or unwire hooks and MCP servers, and `env`,
 * which Claude Code puts in the environment of every hook it runs (a
 * VOUCH_HOME of the agent's choosing, VOUCH_ROLE, NODE_OPTIONS...); the rest
 * of a settings file is the client's own business.
 */
const WIRING_KEYS = ['hooks', 'disableAllHooks', 'env', 'mcpServers', 'enableAllProjectMcpServers', 'enabledMcpjsonServers', 'disabledMcpjsonServers'];

/**
 * A JSON settings file is compared on its wiring keys only: Claude Code
 * writes permissions into settings.local.json when a person answers "always
 * allow" mid-session, and that must not read as the agent unhooking its
 * gate. A file that does not parse is compared whole.
 */
function wiringDigestOfJson(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return digestOf(path);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return sha256(text);
    const record = value as Record<string, unknown>;
    return digestJson(WIRING_KEYS.map((key) => [key, record[key] ?? null]));
  } catch {
    return sha256(text);
  }
}

function listing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function digestOf(path: string): string {
  try {
    return sha256(readFileSync(path));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR' ? 'absent' : `unreadable:${code ?? 'error'}`;
  }
}

function differing(before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>): string[] {
  const paths = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...paths].filter((path) => (before[path] ?? 'absent') !== (after[path] ?? 'absent')).sort();
}
