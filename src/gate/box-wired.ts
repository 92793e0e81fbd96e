import { claudeSettingsSources } from '../install/box/claude-settings.js';
import { boxState, type BoxState } from './box.js';

/**
 * The box of Claude Code in this workspace as its settings are now, when
 * vouch's Claude Code hooks are wired there (any settings file names `vouch
 * ... hook claude-code`); null when they are not, so a workspace gated
 * only through another client says nothing of Claude Code's sandbox.
 */
export function wiredBox(root: string, env: NodeJS.ProcessEnv, protect: readonly string[]): BoxState | null {
  const wired = claudeSettingsSources(root, env).some((source) => source.value !== null && JSON.stringify(source.value.hooks ?? null).includes('hook claude-code'));
  return wired ? boxState('claude-code', root, env, protect) : null;
}
