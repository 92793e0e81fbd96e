import { shellLine } from '../core/quote.js';
import type { ToolUse } from '../gate/guard.js';
import { claudeCode } from './claude-code.js';
import { lines, type ClientProtocol, type HookReply } from './protocol.js';

const field = (input: unknown, key: string): unknown => (typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[key] : undefined);

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
    if (Array.isArray(value) && value.length === 2 && (value[0] === 'apply_patch' || value[0] === 'applypatch') && typeof value[1] === 'string') return value[1];
  }
  return null;
}

/**
 * Codex's hook protocol: the same JSON shapes as Claude Code (decision:
 * block on Stop, hookSpecificOutput.permissionDecision: deny on PreToolUse).
 * Its shell tool is Bash; file edits arrive as apply_patch bodies.
 */
export const codex: ClientProtocol = {
  client: 'codex',

  toolUse: (toolName, toolInput): ToolUse | null => {
    if (toolName === null) return null;
    if (toolName === 'apply_patch' || toolName === 'ApplyPatch') return { kind: 'patch', tool: toolName, patch: patchText(toolInput) };
    if (toolName === 'Bash' || toolName === 'shell' || toolName === 'exec_command' || toolName === 'local_shell') {
      // Codex runs `apply_patch <<'EOF' ...` (and `cd DIR && apply_patch ...`) itself: the shell reader reads that command's patch.
      const command = commandText(field(toolInput, 'command') ?? field(toolInput, 'cmd'));
      return command !== null ? { kind: 'shell', tool: toolName, command } : { kind: 'other', tool: toolName };
    }
    return claudeCode.toolUse(toolName, toolInput);
  },

  allowStop: (notice): HookReply => {
    return { stdout: '', stderr: lines(notice), exitCode: 0 };
  },

  blockStop: claudeCode.blockStop,
  denyTool: claudeCode.denyTool,
  pass: claudeCode.pass,
};
