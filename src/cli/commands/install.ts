import * as mcp from './install-mcp.js';
import { runConfigEdit } from '../config-edit.js';
import type { Cli } from '../io.js';
import { refuseInAgentRun } from '../person-only.js';

export const help = `usage: vouch install claude-code [--scope project|user] [--no-sandbox [--exec]] [--json]
       vouch install codex [--scope project|user] [--no-sandbox] [--json]
       vouch install hermes [--json]
       vouch install git-hooks [--pre-commit] [--json]
       vouch install mcp --client claude-code|cursor|codex|hermes [--name NAME] [--write] [--json]

Wires vouch into an agent client or git:
  claude-code  Stop/SubagentStop run the gate, SubagentStart records each
               subagent as a dispatch, PreToolUse the write guard,
               PostToolUse the trail; in .claude/settings.json of the
               workspace (project, default) or the user's Claude settings
               ($CLAUDE_CONFIG_DIR or ~/.claude/settings.json); and the box:
               Claude Code's own sandbox for the agent's commands
               (bubblewrap and socat on Linux, checked first), fail-closed,
               with no way out, what vouches read-only (.vouch/, vouch.yaml,
               protect: paths, .claude/, .codex/, MCP entries, .git/config
               and hooks, VOUCH_HOME), the project's package registries
               reachable. --no-sandbox: the hooks alone (it says what that
               gives up); --no-sandbox --exec: the guard also rewrites each
               Bash call into \`vouch exec -- /bin/sh -c CMD\`, run under
               vouch.yaml's exec: policy in bubblewrap
  codex        Stop, SubagentStart/SubagentStop (thread-spawned subagents,
               each gated at its own stop), PreToolUse and PostToolUse for
               Codex, in .codex/hooks.json (project) or $CODEX_HOME/hooks.json
               (user). A codex on PATH older than 0.171.0 gets Stop only:
               its subagent work is judged at the root Stop. And the box, in
               config.toml beside the hooks file: a permission profile
               ("vouch", selected by default_permissions, approval_policy
               "never") under which Codex's own sandbox keeps what vouches
               read-only in the writable workspace (Codex reads a project's
               .codex/config.toml only once it trusts the project).
               --no-sandbox: the hooks alone
  hermes       a native Hermes Agent plugin in $HERMES_HOME/plugins/vouch/
               (default ~/.hermes), enabled in its config.yaml: pre_verify
               runs the gate, pre_tool_call the write guard, post_tool_call
               the trail; /vouch, the tools vouch_status and vouch_verify,
               \`hermes vouch doctor\`. User scope only
  git-hooks    a pre-push hook that refuses a push while a blocking check is
               not a PASS for the files of a commit pushed (not the work
               tree's), at the repository's hooks path; --pre-commit adds a
               pre-commit hook that judges the staged files
  mcp          the entry that makes an MCP client start \`vouch mcp\` for this
               workspace: printed, or added to the client's file with --write
               (see below)

Hook commands name node and vouch's entry script by absolute path; they do
not depend on PATH. At project scope in a workspace with vouch in its
node_modules, they run the project's own node_modules/.bin/vouch instead
(through $CLAUDE_PROJECT_DIR for Claude Code, relative to the work tree for
git): no path of this machine in a file a team commits. A VOUCH_HOME set at
install is written into the command. Every edit states what it will do, backs the file up
under VOUCH_HOME/installs, is built in memory, parsed again and compared with
the intended change before it is written. Anything unexpected (invalid JSON
or TOML, a shape vouch does not edit, a place already taken) is refused with
the reason, the path and the steps to do it by hand; nothing is written.
Running it twice changes nothing. \`vouch uninstall\` takes it back.

Refused inside an agent run (Claude Code, Codex, Hermes, Cursor, Gemini CLI, AI_AGENT
set): exit 4, agent_run. The gate's wiring is the person's to change.

exit: 0 done (or nothing to do), 2 usage or workspace problem (or the box's
prerequisites missing: sandbox_unavailable), 3 refused,
4 inside an agent run (agent_run)

${mcp.help}`;

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const at = args.findIndex((arg, i) => !arg.startsWith('-') && args[i - 1] !== '-C' && args[i - 1] !== '--dir');
  // Wiring the gate in or out, even printing an MCP entry, is the person's: the agent under the gate never does it.
  refuseInAgentRun(cli.io.env, `vouch install${at >= 0 ? ` ${args[at]}` : ''}`, 'wiring');
  if (at >= 0 && args[at] === 'mcp') return mcp.run(cli, [...args.slice(0, at), ...args.slice(at + 1)]);
  return runConfigEdit(cli, args, 'install');
}
