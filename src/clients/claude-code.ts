import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { STOP_TIMEOUT_SECONDS, TOOL_TIMEOUT_SECONDS, type AgentClient, type Scope } from './descriptor.js';
import { lines, type HookProtocol, type HookReply } from './hook-protocol.js';
import { field, type ToolUse } from './tool-use.js';

/** Claude Code's settings file for a scope: the project's .claude/settings.json, or the user's. */
export function claudeSettingsPath(scope: Scope, root: string | null, env: NodeJS.ProcessEnv): string {
  if (scope === 'project') return join(root!, '.claude', 'settings.json');
  return join(env.CLAUDE_CONFIG_DIR ?? join(env.HOME ?? homedir(), '.claude'), 'settings.json');
}

/** Tools whose calls the guard checks and the trail records. */
export const WRITE_TOOLS = 'Write|Edit|MultiEdit|NotebookEdit|Bash';

/**
 * Claude Code's hook protocol (checked with 2.1.332): a block or deny is a
 * JSON object on stdout with exit 0; `systemMessage` is shown to the person.
 * An allow prints nothing, so the client's own permission rules still apply
 * (a PreToolUse "allow" would skip them).
 */
export const claudeCodeProtocol: HookProtocol = {
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
        // Its PostToolUse and PostToolUseFailure reach vouch for every tool (a card worker's budget counts them).
        return { kind: 'read', tool: toolName };
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

  // The stop's answer stays what it was (allow: no decision; block: decision and reason); the message only joins any systemMessage there.
  tell: (reply, message): HookReply => {
    const answer = reply.stdout.trim() === '' ? {} : (JSON.parse(reply.stdout) as { systemMessage?: string });
    const systemMessage = answer.systemMessage ? `${answer.systemMessage}\n${message}` : message;
    return { ...reply, stdout: `${JSON.stringify({ ...answer, systemMessage })}\n` };
  },

  // No permissionDecision: the client's own permission rules still decide whether the (rewritten) call runs.
  rewriteShell: (toolInput, command): HookReply => {
    const input = typeof toolInput === 'object' && toolInput !== null ? toolInput : {};
    const answer = { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { ...input, command } } };
    return { stdout: `${JSON.stringify(answer)}\n`, stderr: '', exitCode: 0 };
  },
};

/**
 * Claude Code (2.1.332): CLAUDECODE=1 in what it runs; hooks in its JSON
 * settings (Stop and SubagentStop run the gate, SubagentStart puts a
 * subagent on the ledger, PreToolUse the guard, PostToolUse the trail and,
 * with PostToolUseFailure, a card worker's budget);
 * settings.local.json, merged over settings.json, can remove or disable the
 * same hooks, so it is wiring too; its sandbox is the box.
 */
export const claudeCode = {
  id: 'claude-code',
  label: 'Claude Code',
  markers: ['CLAUDECODE'],
  // Set for its Bash commands, hooks and MCP servers (checked with 2.1.332): the hook payloads' session_id.
  sessionVariable: 'CLAUDE_CODE_SESSION_ID',
  hooks: {
    protocol: claudeCodeProtocol,
    install: {
      kind: 'hooks-file',
      summary: "Claude Code hooks: the Stop gate, the write guard and the trail (in .claude/settings.json, or the user's settings)",
      scopes: ['project', 'user'],
      file: claudeSettingsPath,
      projectDirVariable: 'CLAUDE_PROJECT_DIR',
      events: [
        { event: 'Stop', matcher: null, timeout: STOP_TIMEOUT_SECONDS },
        { event: 'SubagentStart', matcher: null, timeout: TOOL_TIMEOUT_SECONDS },
        { event: 'SubagentStop', matcher: null, timeout: STOP_TIMEOUT_SECONDS },
        // The guard fails closed even when vouch cannot start (see hooks/hooks.json and docs/decisions/installing-into-other-tools-config.md).
        { event: 'PreToolUse', matcher: WRITE_TOOLS, timeout: TOOL_TIMEOUT_SECONDS, onFailure: 'block' },
        // Every tool, not only the writing ones: a card's worker budget counts every call it makes (tokens, and
        // failures in a row, which any successful call resets), and the trail shows what the session did.
        { event: 'PostToolUse', matcher: null, timeout: TOOL_TIMEOUT_SECONDS },
        { event: 'PostToolUseFailure', matcher: null, timeout: TOOL_TIMEOUT_SECONDS },
      ],
    },
    wiring: (root, env) => {
      const user = { path: claudeSettingsPath('user', null, env), dir: false, scope: 'user', what: "Claude Code's user settings (its hooks)" } as const;
      if (root === null) return [user];
      const project = claudeSettingsPath('project', root, env);
      return [
        { path: project, dir: false, scope: 'project', what: "Claude Code's project settings (its hooks)" },
        { path: join(dirname(project), 'settings.local.json'), dir: false, scope: 'project', what: "Claude Code's local project settings (its hooks)" },
        user,
      ];
    },
    projectDir: '.claude',
    box: 'claude-code-sandbox',
    exec: { event: 'PreToolUse' },
  },
} as const satisfies AgentClient;
