import * as mcp from './install-mcp.js';
import { runConfigEdit } from '../config-edit.js';
import type { Cli } from '../io.js';
import { refuseInAgentRun } from '../person-only.js';

export const help = `usage: vouch uninstall claude-code [--scope project|user] [--json]
       vouch uninstall codex [--scope project|user] [--json]
       vouch uninstall hermes [--json]
       vouch uninstall git-hooks [--json]
       vouch uninstall mcp --client claude-code|cursor|codex|hermes [--name NAME] [--json]

Takes back what \`vouch install\` did. When the file is still exactly what vouch
wrote, its original bytes are restored from the backup (or the file is
removed if vouch created it). When it changed since, exactly what vouch added
is removed and the result is checked before it is written; anything else is
refused with the steps to do it by hand. Running it twice changes nothing.

Refused inside an agent run (Claude Code, Codex, Hermes, Cursor, Gemini CLI, AI_AGENT
set): exit 4, agent_run. The gate's wiring is the person's to change.

exit: 0 done (or nothing to do), 2 usage or workspace problem, 3 refused,
4 inside an agent run (agent_run)

${mcp.uninstallHelp}`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const at = args.findIndex((arg, i) => !arg.startsWith('-') && args[i - 1] !== '-C' && args[i - 1] !== '--dir');
  // Wiring the gate in or out, even printing an MCP entry, is the person's: the agent under the gate never does it.
  refuseInAgentRun(cli.io.env, `vouch uninstall${at >= 0 ? ` ${args[at]}` : ''}`, 'wiring');
  if (at >= 0 && args[at] === 'mcp') return mcp.runUninstall(cli, [...args.slice(0, at), ...args.slice(at + 1)]);
  return runConfigEdit(cli, args, 'uninstall');
}
