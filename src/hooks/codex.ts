import { shellLine } from '../core/quote.js';
import type { ToolUse } from '../gate/guard.js';
import { claudeCode } from './claude-code.js';
import { lines, type ClientProtocol, type HookReply } from './protocol.js';

const field = (input: unknown, key: string): unknown => (typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[key] : undefined);

/** A shell command as Codex passes it: a string, or an argv such as ["bash", "-lc", "..."]. */
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
 * Codex's hook protocol: the same JSON shapes as Claude Code (decision:
 * block on Stop, hookSpecificOutput.permissionDecision: deny on PreToolUse).
 * Its shell tool is Bash; file edits arrive as apply_patch bodies.
 */
export const codex: ClientProtocol = {
  client: 'codex',

  toolUse: (toolName, toolInput): ToolUse | null => {
    if (toolName === null) return null;
    if (toolName === 'apply_patch' || toolName === 'ApplyPatch') {
      const patch = [field(toolInput, 'patch'), field(toolInput, 'input'), field(toolInput, 'command')].find((v) => typeof v === 'string');
      return typeof patch === 'string' ? { kind: 'patch', tool: toolName, patch } : { kind: 'other', tool: toolName };
    }
    if (toolName === 'Bash' || toolName === 'shell' || toolName === 'exec_command' || toolName === 'local_shell') {
      const command = commandText(field(toolInput, 'command') ?? field(toolInput, 'cmd'));
      if (command !== null && command.includes('*** Begin Patch')) return { kind: 'patch', tool: toolName, patch: command };
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
