import { readFileSync } from 'node:fs';
import { codexHooksPath } from '../clients/codex.js';
import { claudeSettingsSources } from '../install/box/claude-settings.js';
import { boxState, type BoxState } from './box.js';

/**
 * The box of the client whose vouch hooks are wired in this workspace, as
 * its settings are now: Claude Code's when any of its settings files names
 * `vouch ... hook claude-code`, else Codex's when its project or user hooks
 * file names `hook codex`; null when neither is, so a workspace gated only
 * through another client says nothing of a sandbox.
 */
export function wiredBox(root: string, env: NodeJS.ProcessEnv, protect: readonly string[]): BoxState | null {
  const claude = claudeSettingsSources(root, env).some(
    (source) => source.value !== null && JSON.stringify(source.value.hooks ?? null).includes('hook claude-code'),
  );
  if (claude) return boxState('claude-code', root, env, protect);
  const codex = [codexHooksPath('project', root, env), codexHooksPath('user', null, env)].some((path) => text(path).includes('hook codex'));
  return codex ? boxState('codex', root, env, protect) : null;
}

function text(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
