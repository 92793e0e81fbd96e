import { fail } from '../../core/problem.js';
import type { ConfigEntry, McpClient } from './client.js';

/**
 * Applies an entry to a client's configuration file, by the rules every
 * vouch installer follows (design.md, invariant 11): back up, build the new
 * file in memory, re-parse it, compare it with exactly `entry`, refuse
 * anything unexpected, stay idempotent, and let uninstall restore the
 * original bytes. Those rules live in one config-edit module shared by all
 * installers; until it is in this tree, --write refuses rather than edit a
 * user's file another way. Wiring it is this function's body: hand it
 * `path`, `client.format`, `entry.key` and `entry.value`.
 */
export function writeEntry(client: McpClient, path: string, entry: ConfigEntry, printed: boolean): never {
  return fail({
    code: 'usage',
    message: `--write is not yet available for ${client.label}: apply the ${printed ? 'printed ' : ''}snippet by hand`,
    where: path,
    hint: printed
      ? `add the ${entry.key.join('.')} entry printed above to ${path}`
      : `run the same command without --write to print the snippet, then add it to ${path}`,
  });
}
