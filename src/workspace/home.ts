import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * User-level state (trust, keys) lives outside every repository, so nothing
 * an agent writes in the workspace can grant itself trust:
 * $VOUCH_HOME, else $XDG_CONFIG_HOME/vouch, else ~/.config/vouch.
 */
export function vouchHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.VOUCH_HOME) return resolve(env.VOUCH_HOME);
  if (env.XDG_CONFIG_HOME) return resolve(env.XDG_CONFIG_HOME, 'vouch');
  return join(env.HOME ?? homedir(), '.config', 'vouch');
}
