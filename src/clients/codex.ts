import { homedir } from 'node:os';
import { join } from 'node:path';
import { childProcess } from '../core/builtins.js';
import { shellLine } from '../core/quote.js';
import { claudeCodeProtocol } from './claude-code.js';
import { STOP_TIMEOUT_SECONDS, TOOL_TIMEOUT_SECONDS, type AgentClient, type Scope } from './descriptor.js';
import { lines, type HookProtocol, type HookReply } from './hook-protocol.js';
import { field, type ToolUse } from './tool-use.js';

/** $CODEX_HOME, default ~/.codex. */
export function codexHome(env: NodeJS.ProcessEnv): string {
  return env.CODEX_HOME || join(env.HOME || homedir(), '.codex');
}

/** Codex's hooks file for a scope: the project's .codex/hooks.json, or $CODEX_HOME/hooks.json. */
export function codexHooksPath(scope: Scope, root: string | null, env: NodeJS.ProcessEnv): string {
  if (scope === 'project') return join(root!, '.codex', 'hooks.json');
  return join(codexHome(env), 'hooks.json');
}

/**
 * The first Codex vouch has run SubagentStart and SubagentStop with (the
 * cached test binary carries both wire types, and test/codex.test.ts
 * drives a subagent through them). They landed upstream in May 2026
 * (openai/codex #22782, #22873), so some earlier releases have them too;
 * vouch does not assume so.
 */
export const CODEX_SUBAGENT_HOOKS_SINCE = '0.171.0';

/** `codex --version` ("codex-cli 0.171.0") of the codex on PATH, or null when there is none or it says something else. */
export function codexVersion(env: NodeJS.ProcessEnv): string | null {
  try {
    const out = childProcess().execFileSync('codex', ['--version'], { encoding: 'utf8', env, timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] });
    return /\b(\d+\.\d+\.\d+)\b/.exec(out)?.[1] ?? null;
  } catch {
    return null;
  }
}

/** Codex names its shell tool Bash and its file edits apply_patch. */
const CODEX_TOOLS = 'Bash|apply_patch';

/** A shell command as Codex passes it: a string, or an argv such as ["bash", "-lc", "..."] (an argv ["apply_patch", PATCH] is read by the shell reader as that command). */
function commandText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((part) => typeof part === 'string')) {
    const argv: string[] = value;
    const script = argv.findIndex((part) => part === '-c' || part === '-lc');
    if (script > 0 && argv[script + 1] !== undefined) return argv[script + 1]!;
    return shellLine(argv);
  }
  return null;
}

/**
 * The patch of an apply_patch call, in every shape Codex gives it: the
 * field `command` (what 0.171 sends for its apply_patch tool), `patch` or
 * `input`, as text or as an argv ["apply_patch", PATCH]; or the input
 * itself as text. Null when none is there: the guard then denies the call,
 * since what it writes cannot be read.
 */
function patchText(input: unknown): string | null {
  if (typeof input === 'string') return input;
  for (const key of ['command', 'patch', 'input']) {
    const value = field(input, key);
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.length === 2 && (value[0] === 'apply_patch' || value[0] === 'applypatch') && typeof value[1] === 'string')
      return value[1];
  }
  return null;
}

/**
 * Codex's hook protocol: the same JSON shapes as Claude Code (decision:
 * block on Stop, hookSpecificOutput.permissionDecision: deny on PreToolUse).
 * Its shell tool is Bash; file edits arrive as apply_patch bodies.
 */
export const codexProtocol: HookProtocol = {
  toolUse: (toolName, toolInput): ToolUse | null => {
    if (toolName === null) return null;
    if (toolName === 'apply_patch' || toolName === 'ApplyPatch') return { kind: 'patch', tool: toolName, patch: patchText(toolInput) };
    if (toolName === 'Bash' || toolName === 'shell' || toolName === 'exec_command' || toolName === 'local_shell') {
      // Codex runs `apply_patch <<'EOF' ...` (and `cd DIR && apply_patch ...`) itself: the shell reader reads that command's patch.
      const command = commandText(field(toolInput, 'command') ?? field(toolInput, 'cmd'));
      return command !== null ? { kind: 'shell', tool: toolName, command } : { kind: 'other', tool: toolName };
    }
    return claudeCodeProtocol.toolUse(toolName, toolInput);
  },

  allowStop: (notice): HookReply => {
    return { stdout: '', stderr: lines(notice), exitCode: 0 };
  },

  blockStop: claudeCodeProtocol.blockStop,
  denyTool: claudeCodeProtocol.denyTool,
  pass: claudeCodeProtocol.pass,
};

/**
 * Codex (0.171.0): CODEX_THREAD_ID, CODEX_TOOL_CALL_ID (and CODEX_CI=1,
 * CODEX_SANDBOX inside its sandbox) in what it runs; hooks in hooks.json;
 * its config.toml can switch hooks off and holds its MCP servers, so it is
 * wiring too.
 */
export const codex = {
  id: 'codex',
  label: 'Codex',
  markers: ['CODEX_THREAD_ID', 'CODEX_TOOL_CALL_ID', 'CODEX_CI', 'CODEX_SANDBOX'],
  hooks: {
    protocol: codexProtocol,
    install: {
      kind: 'hooks-file',
      summary: "Codex hooks: the Stop gate, the write guard and the trail (in .codex/hooks.json, or the user's)",
      scopes: ['project', 'user'],
      file: codexHooksPath,
      events: [
        { event: 'Stop', matcher: null, timeout: STOP_TIMEOUT_SECONDS },
        // Thread-spawned subagents run SubagentStop instead of Stop (openai/codex #22873), keyed by session_id + agent_id.
        { event: 'SubagentStart', matcher: null, timeout: TOOL_TIMEOUT_SECONDS, since: CODEX_SUBAGENT_HOOKS_SINCE },
        { event: 'SubagentStop', matcher: null, timeout: STOP_TIMEOUT_SECONDS, since: CODEX_SUBAGENT_HOOKS_SINCE },
        { event: 'PreToolUse', matcher: CODEX_TOOLS, timeout: TOOL_TIMEOUT_SECONDS },
        { event: 'PostToolUse', matcher: CODEX_TOOLS, timeout: TOOL_TIMEOUT_SECONDS },
      ],
      version: codexVersion,
      olderNote: 'this Codex runs no SubagentStart or SubagentStop that vouch has checked: subagent work is judged at the root Stop',
    },
    wiring: (root, env) => {
      const user = [
        { path: codexHooksPath('user', null, env), dir: false, scope: 'user', what: "Codex's user hooks" },
        { path: join(codexHome(env), 'config.toml'), dir: false, scope: 'user', what: "Codex's MCP servers and its user config (features, sandbox)" },
      ] as const;
      return root === null ? user : [{ path: codexHooksPath('project', root, env), dir: false, scope: 'project', what: "Codex's project hooks" }, ...user];
    },
    projectDir: '.codex',
    box: 'codex-permissions',
  },
} as const satisfies AgentClient;
