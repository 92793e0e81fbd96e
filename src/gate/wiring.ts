import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { claudeSettingsPath } from '../install/targets/claude-code.js';
import { codexHooksPath } from '../install/targets/codex.js';
import { trustRecordPath } from '../trust/trust.js';

/**
 * The files that wire the gate to an agent and decide what it trusts, as
 * absolute paths: the clients' hook settings (project and user scope), the
 * git hooks directory's pre-push, this workspace's trust record and the
 * public keys vouch trusts. An agent that edits one of them can unhook or
 * blind the gate, so the gate compares them at every stop with what they
 * were at the session's first hook (session-record.ts), whatever wrote them.
 */
export function wiringPaths(root: string, home: string, env: NodeJS.ProcessEnv): string[] {
  const paths = new Set<string>([
    claudeSettingsPath('project', root, env),
    join(root, '.claude', 'settings.local.json'),
    claudeSettingsPath('user', null, env),
    codexHooksPath('project', root, env),
    codexHooksPath('user', null, env),
    join(root, '.git', 'hooks', 'pre-push'),
    trustRecordPath(home, root),
  ]);
  for (const name of listing(join(home, 'keys'))) if (name.endsWith('.pub')) paths.add(join(home, 'keys', name));
  return [...paths].sort();
}

function listing(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
