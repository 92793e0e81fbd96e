import { homedir } from 'node:os';
import { join } from 'node:path';
import type { EditIntent } from '../intent.js';
import { hookIntent, STOP_TIMEOUT_SECONDS, type SelfCommand } from './agent-hooks.js';
import type { Scope } from './claude-code.js';

/** Codex's hooks file for a scope: the project's .codex/hooks.json, or $CODEX_HOME/hooks.json. */
export function codexHooksPath(scope: Scope, root: string | null, env: NodeJS.ProcessEnv): string {
  if (scope === 'project') return join(root!, '.codex', 'hooks.json');
  return join(env.CODEX_HOME ?? join(env.HOME ?? homedir(), '.codex'), 'hooks.json');
}

/** Codex names its shell tool Bash and its file edits apply_patch. */
const CODEX_TOOLS = 'Bash|apply_patch';

export function codexIntent(path: string, self: SelfCommand): EditIntent {
  return hookIntent(path, 'codex', self, [
    { event: 'Stop', matcher: null, timeout: STOP_TIMEOUT_SECONDS },
    { event: 'PreToolUse', matcher: CODEX_TOOLS, timeout: 30 },
    { event: 'PostToolUse', matcher: CODEX_TOOLS, timeout: 30 },
  ]);
}
