import type { ToolUse } from '../gate/guard.js';
import { lines, type ClientProtocol, type HookReply } from './protocol.js';

const field = (input: unknown, key: string): unknown => (typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[key] : undefined);

/**
 * Claude Code's hook protocol (checked with 2.1.332): a block or deny is a
 * JSON object on stdout with exit 0; `systemMessage` is shown to the person.
 * An allow prints nothing, so the client's own permission rules still apply
 * (a PreToolUse "allow" would skip them).
 */
export const claudeCode: ClientProtocol = {
  client: 'claude-code',

  toolUse: (toolName, toolInput): ToolUse | null => {
    if (toolName === null) return null;
    switch (toolName) {
      case 'Write':
      case 'Edit':
      case 'MultiEdit': {
        const path = field(toolInput, 'file_path');
        return { kind: 'write', tool: toolName, paths: typeof path === 'string' ? [path] : [] };
      }
      case 'NotebookEdit': {
        const path = field(toolInput, 'notebook_path');
        return { kind: 'write', tool: toolName, paths: typeof path === 'string' ? [path] : [] };
      }
      case 'Bash': {
        const command = field(toolInput, 'command');
        return typeof command === 'string' ? { kind: 'shell', tool: toolName, command } : { kind: 'other', tool: toolName };
      }
      default:
        return { kind: 'other', tool: toolName };
    }
  },

  allowStop: (notice, shout): HookReply => {
    return { stdout: notice && shout ? `${JSON.stringify({ systemMessage: notice })}\n` : '', stderr: lines(notice), exitCode: 0 };
  },

  blockStop: (reason, notice): HookReply => {
    return { stdout: `${JSON.stringify({ decision: 'block', reason })}\n`, stderr: lines(notice), exitCode: 0 };
  },

  denyTool: (reason): HookReply => {
    const answer = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
    return { stdout: `${JSON.stringify(answer)}\n`, stderr: '', exitCode: 0 };
  },

  pass: (notice): HookReply => {
    return { stdout: '', stderr: lines(notice), exitCode: 0 };
  },
};
