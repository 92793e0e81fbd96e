import { runConfigEdit } from '../config-edit.js';
import type { Cli } from '../io.js';

export const help = `usage: vouch uninstall claude-code [--scope project|user] [--json]
       vouch uninstall codex [--scope project|user] [--json]
       vouch uninstall git-hooks [--json]

Takes back what \`vouch install\` did. When the file is still exactly what vouch
wrote, its original bytes are restored from the backup (or the file is
removed if vouch created it). When it changed since, exactly what vouch added
is removed and the result is checked before it is written; anything else is
refused with the steps to do it by hand. Running it twice changes nothing.

exit: 0 done (or nothing to do), 2 usage or workspace problem, 3 refused`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  return runConfigEdit(cli, args, 'uninstall');
}
