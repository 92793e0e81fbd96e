import { statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { hasProjectBin, PROJECT_BIN } from '../targets/hook-command.js';
import { vouchHome } from '../../workspace/home.js';
import type { AgentClient } from '../../clients/descriptor.js';
import { CLIENTS, hookedClients } from '../../clients/registry.js';

/** One path the agent's box keeps read-only. */
export interface ReadOnlyPath {
  /** Absolute; relative to the workspace root only when no root is known (a user-scope install serves every workspace). */
  readonly path: string;
  /** A directory: everything beneath it too. */
  readonly dir: boolean;
  /** What it is, for people: "the ledger (.vouch/)". */
  readonly what: string;
}

/** A protect: glob the box cannot hold as a path (a wildcard before its last part), said so rather than dropped. */
export interface UnboxableGlob {
  readonly glob: string;
  readonly why: string;
}

export interface ReadOnlySet {
  readonly paths: readonly ReadOnlyPath[];
  readonly unboxable: readonly UnboxableGlob[];
}

/**
 * What vouches, as paths the agent's commands must not write: the ledger
 * (.vouch/), the spec, the protect: paths, the clients' settings and hook
 * files (.claude/, .codex/, the MCP entries), git's config and hooks (where
 * core.hooksPath would be set, and where the pre-push hook lives), and
 * VOUCH_HOME wherever it is. One list, read by `install` (which writes it
 * into the client's sandbox settings) and by the gate (which checks that
 * the settings in force cover it), so the two cannot drift apart.
 *
 * `root` null: the list for every workspace (a user-scope install), as
 * paths relative to the workspace the client runs in; protect: globs are
 * per workspace and are then left out. `gitHooksDir`: where this
 * workspace's git hooks are (core.hooksPath), when known.
 */
export function readOnlySet(
  root: string | null,
  env: NodeJS.ProcessEnv,
  protect: readonly string[],
  gitHooksDir: string | null = null,
  clients: readonly AgentClient[] = CLIENTS,
): ReadOnlySet {
  const paths: ReadOnlyPath[] = [];
  const seen = new Set<string>();
  const add = (path: string, dir: boolean, what: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    paths.push({ path, dir, what });
  };
  const at = (relative: string) => (root === null ? relative : join(root, relative));
  add(at('.vouch'), true, "vouch's ledger and state (.vouch/)");
  add(at('vouch.yaml'), false, 'the spec (vouch.yaml)');
  for (const client of hookedClients(clients)) {
    const dir = client.hooks.projectDir;
    if (dir !== null) add(at(dir), true, `${client.label}'s project settings and hooks (${dir}/)`);
  }
  add(at('.mcp.json'), false, "Claude Code's project MCP servers (.mcp.json)");
  add(at(join('.cursor', 'mcp.json')), false, "Cursor's MCP servers (.cursor/mcp.json)");
  add(at(join('.git', 'config')), false, "git's config (core.hooksPath)");
  add(at(join('.git', 'hooks')), true, "git's hooks (.git/hooks/)");
  if (root !== null && gitHooksDir !== null && gitHooksDir !== join(root, '.git', 'hooks')) add(gitHooksDir, true, "git's hooks (core.hooksPath)");
  add(vouchHome(env), true, 'VOUCH_HOME (trust records, session records, keys)');
  // A project-scope hook command runs the project's own vouch (install/targets/hook-command.ts): what it runs is wiring too.
  if (hasProjectBin(root)) {
    add(at(PROJECT_BIN), false, "the project's vouch that the hooks run (node_modules/.bin/vouch)");
    add(at(join('node_modules', 'vouch')), true, "the project's vouch package (node_modules/vouch/)");
  }
  // The user's own settings and hook files: outside the workspace the sandbox refuses writes already; moved inside it, they are listed.
  if (root !== null) for (const place of userWiring(env, clients)) if (place.path.startsWith(`${root}${sep}`)) add(place.path, place.dir, place.what);
  const unboxable: UnboxableGlob[] = [];
  if (root !== null) {
    for (const glob of protect) {
      const held = globAsPath(glob);
      if (held === null) unboxable.push({ glob, why: 'a wildcard comes before its last part, and the sandbox takes paths, not patterns' });
      else add(join(root, held.path), held.dir || isDir(join(root, held.path)), `protected by vouch.yaml (protect: ${glob})`);
    }
  }
  return { paths, unboxable };
}

function userWiring(env: NodeJS.ProcessEnv, clients: readonly AgentClient[]) {
  return hookedClients(clients).flatMap((client) => client.hooks.wiring(null, env));
}

/**
 * A protect: glob as the one path it names: a plain path, or a directory
 * followed by `/**` (everything beneath it). Anything else has a wildcard
 * the sandbox cannot hold as a path: null.
 */
export function globAsPath(glob: string): { readonly path: string; readonly dir: boolean } | null {
  const trimmed = glob.replace(/^\.\//, '');
  const base = trimmed.endsWith('/**') ? trimmed.slice(0, -3) : trimmed;
  if (base === '' || /[*?[\]{}!]/.test(base)) return null;
  return { path: base.replace(/\/$/, ''), dir: trimmed.endsWith('/**') || trimmed.endsWith('/') };
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
