import { homedir } from 'node:os';
import { join } from 'node:path';
import type { EditIntent } from '../intent.js';
import { GATE_EVENTS, hookIntent, type SelfCommand } from './agent-hooks.js';

export type Scope = 'project' | 'user';

/** Claude Code's settings file for a scope: the project's .claude/settings.json, or the user's. */
export function claudeSettingsPath(scope: Scope, root: string | null, env: NodeJS.ProcessEnv): string {
  if (scope === 'project') return join(root!, '.claude', 'settings.json');
  return join(env.CLAUDE_CONFIG_DIR ?? join(env.HOME ?? homedir(), '.claude'), 'settings.json');
}

/** Stop and SubagentStop run the gate, SubagentStart puts a subagent on the ledger, PreToolUse the guard, PostToolUse the trail. */
export function claudeCodeIntent(path: string, self: SelfCommand): EditIntent {
  return hookIntent(path, 'claude-code', self, GATE_EVENTS);
}
