import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Scope } from '../../clients/descriptor.js';
import { shellLine, shellQuote } from '../../core/quote.js';
import type { SelfCommand } from './agent-hooks.js';

/** The project's own vouch, as `npm install --save-dev vouch` links it: what a team's committed hook command runs. */
export const PROJECT_BIN = join('node_modules', '.bin', 'vouch');

/** Whether the workspace has vouch among its own dependencies (node_modules/.bin/vouch). */
export function hasProjectBin(root: string | null): root is string {
  return root !== null && existsSync(join(root, PROJECT_BIN));
}

/**
 * `VOUCH_HOME=...` in front of a hook command when install ran under a
 * VOUCH_HOME of its own: the hook must read the same trust records, and a
 * client starts its hooks in its own environment, not the installer's.
 */
export function homePrefix(env: NodeJS.ProcessEnv): string {
  // The name stays bare (a quoted `VOUCH_HOME=` would be a command word, not an assignment); the value is quoted.
  return env.VOUCH_HOME ? `VOUCH_HOME=${shellQuote(resolve(env.VOUCH_HOME))} ` : '';
}

/**
 * The shell words that start vouch in a hook command. At project scope, in
 * a workspace that depends on vouch, the project's own
 * `node_modules/.bin/vouch` found through the client's project-directory
 * variable (`$CLAUDE_PROJECT_DIR`): no path of this machine goes into a file
 * a team commits, and a clone at another path runs its own copy. Anywhere
 * else (user scope, a client with no such variable, a project without vouch
 * in node_modules) the absolute node and entry script of the vouch that ran
 * install, which need no PATH.
 */
export function vouchWords(
  self: SelfCommand,
  place: { readonly scope: Scope; readonly root: string | null; readonly env: NodeJS.ProcessEnv },
  projectDirVariable: string | undefined,
): string {
  const portable = place.scope === 'project' && projectDirVariable !== undefined && hasProjectBin(place.root);
  return `${homePrefix(place.env)}${portable ? `"$${projectDirVariable}"/${PROJECT_BIN}` : shellLine([self.node, self.entry])}`;
}
