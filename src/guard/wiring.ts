import { homedir } from 'node:os';
import { dirname, isAbsolute, join, sep } from 'node:path';
import { MCP_CONFIG_PLACES } from '../install/mcp/clients/places.js';
import type { AgentClient } from '../clients/descriptor.js';
import { CLIENTS, hookedClients } from '../clients/registry.js';
import { gitHookPath } from '../install/targets/index.js';
import { gitConfigPrint } from './git-hook-place.js';
import { vouchHome } from '../workspace/home.js';

/** One file or directory of the gate's own wiring. */
export interface WiringPath {
  /** Absolute, as vouch computes it (not resolved through symlinks; it may not exist). */
  readonly path: string;
  /** A directory: everything beneath it is wiring too (VOUCH_HOME). */
  readonly dir: boolean;
  /** Which scope it belongs to: the workspace's own files, or the user's (every workspace). */
  readonly scope: 'project' | 'user';
  /** What it wires, in words, for messages: "Claude Code's project settings (its hooks)". */
  readonly what: string;
}

/**
 * The gate's own wiring for a workspace: every file whose edit could remove,
 * blind or bypass the gate (its hooks, the MCP entries install writes, the
 * git pre-push hook), and VOUCH_HOME (trust records, keys, install backups).
 * Paths come from the install targets themselves, so what install writes and
 * what is protected cannot drift apart. `root` null (no workspace): the
 * user-scope entries only. The git hook needs one `git rev-parse`.
 */
export function gateWiring(root: string | null, env: NodeJS.ProcessEnv, hooks?: GitHookPlace): WiringPath[] {
  return [...configWiring(root, env), ...gitHookWiring(root, hooks)];
}

/** The wiring that costs no process to find: every entry but git's hook. Each hooked client's places come from its descriptor. */
export function configWiring(root: string | null, env: NodeJS.ProcessEnv, clients: readonly AgentClient[] = CLIENTS): WiringPath[] {
  const wiring: WiringPath[] = [];
  const seen = new Set<string>();
  const add = (place: WiringPath) => {
    if (seen.has(place.path)) return;
    seen.add(place.path);
    wiring.push(place);
  };
  const file = (path: string, scope: WiringPath['scope'], what: string) => add({ path, dir: false, scope, what });
  const clientPlaces = hookedClients(clients).flatMap((client) => client.hooks.wiring(root, env));
  // The project's places first, then the user's, as a person reads them.
  for (const place of clientPlaces) if (place.scope === 'project') add(place);
  for (const place of clientPlaces) if (place.scope === 'user') add(place);
  const place = { workspaceRoot: root ?? '', home: env.HOME ?? homedir(), env };
  // The places only: the clients themselves load YAML and TOML writers, which a hook call must not.
  for (const client of Object.values(MCP_CONFIG_PLACES)) {
    const path = client.configPath(place);
    // Without a workspace, a project-scope client's path comes out relative: it has none here.
    if (isAbsolute(path)) file(path, root !== null && path.startsWith(`${root}${sep}`) ? 'project' : 'user', `${client.label}'s MCP servers (vouch's entry)`);
  }
  add({ path: vouchHome(env), dir: true, scope: 'user', what: 'VOUCH_HOME (trust records, keys, install backups)' });
  return wiring;
}

/** git's pre-push and pre-commit hooks, wherever core.hooksPath puts them (the repository's; none outside a work tree). Always so named. */
export function gitHookWiring(root: string | null, known?: GitHookPlace): WiringPath[] {
  const hook = root === null ? null : known !== undefined ? known.prePush : gitHookPath(root, 'pre-push');
  return hookPlaces(hook);
}

/** git's answer for where its pre-push hook is (null: no work tree), and what could move that answer (git-hook-place.ts; null: unknown). */
export interface GitHookPlace {
  readonly prePush: string | null;
  readonly print: string | null;
}

/**
 * Where git's hooks are, reusing `earlier` (git's answer at a session's first
 * hook) while nothing that could move it changed: a Stop then spawns no git.
 */
export function gitHookPlace(root: string, env: NodeJS.ProcessEnv, earlier?: GitHookPlace): GitHookPlace {
  const print = gitConfigPrint(root, env);
  if (print !== null && earlier?.print === print) return earlier;
  return { prePush: gitHookPath(root, 'pre-push', env), print };
}

function hookPlaces(hook: string | null): WiringPath[] {
  if (hook === null) return [];
  // Both live in the one hooks directory: one `git rev-parse` finds it.
  return [
    { path: hook, dir: false, scope: 'project', what: "git's pre-push hook" },
    { path: join(dirname(hook), 'pre-commit'), dir: false, scope: 'project', what: "git's pre-commit hook" },
  ];
}
