import { CLAUDE_SANDBOX } from '../install/box/claude-box.js';
import { claudeSettingsSources, listInForce, managedSettingsDir, sandboxPath, settingInForce, type SettingsSource } from '../install/box/claude-settings.js';
import { readOnlySet } from '../install/box/read-only.js';
import { hookedClient } from '../clients/registry.js';
import { unreachable } from '../core/unreachable.js';

/**
 * Whether the agent worked in a box: its client's own OS sandbox, on, with
 * no way out, and what vouches read-only. Read from the client's settings
 * as it merges them (user, project, local, managed), at the session's first
 * hook and again at its stop. `on` only when nothing is missing.
 */
export interface BoxState {
  readonly client: string;
  readonly on: boolean;
  /** What keeps the box from holding; empty when it holds. */
  readonly gaps: readonly BoxGap[];
}

/** One reason the box does not hold, as a stable code. */
export type BoxGap =
  /** sandbox.enabled is not true: the agent's commands run unconfined. */
  | { readonly kind: 'sandbox_off' }
  /** sandbox.failIfUnavailable is not true: without bubblewrap the commands would run unconfined, silently. */
  | { readonly kind: 'fail_open' }
  /** sandbox.allowUnsandboxedCommands is not false: the agent can ask to run a command outside (dangerouslyDisableSandbox). */
  | { readonly kind: 'escape_hatch' }
  /** sandbox.excludedCommands lists commands that run outside the sandbox. */
  | { readonly kind: 'excluded_commands'; readonly commands: readonly string[] }
  /** A path that vouches is not in sandbox.filesystem.denyWrite: the agent's commands can write it. */
  | { readonly kind: 'writable'; readonly path: string }
  /** vouch cannot read this client's sandbox settings (it has none it knows of). */
  | { readonly kind: 'not_known' };

/** The box of a session of this client in this workspace, as its settings say now. */
export function boxState(client: string, root: string, env: NodeJS.ProcessEnv, protect: readonly string[], managedDir: string | null = managedSettingsDir()): BoxState {
  const box = hookedClient(client)?.hooks.box ?? null;
  if (box === null) return { client, on: false, gaps: [{ kind: 'not_known' }] };
  switch (box) {
    case 'claude-code-sandbox':
      return claudeBox(client, claudeSettingsSources(root, env, managedDir), root, env, protect);
    default:
      return unreachable(box);
  }
}

function claudeBox(client: string, sources: readonly SettingsSource[], root: string, env: NodeJS.ProcessEnv, protect: readonly string[]): BoxState {
  const gaps: BoxGap[] = [];
  if (settingInForce(sources, CLAUDE_SANDBOX.enabled) !== true) gaps.push({ kind: 'sandbox_off' });
  if (settingInForce(sources, CLAUDE_SANDBOX.failIfUnavailable) !== true) gaps.push({ kind: 'fail_open' });
  if (settingInForce(sources, CLAUDE_SANDBOX.allowUnsandboxedCommands) !== false) gaps.push({ kind: 'escape_hatch' });
  const excluded = listInForce(sources, CLAUDE_SANDBOX.excludedCommands).map((e) => e.entry);
  if (excluded.length > 0) gaps.push({ kind: 'excluded_commands', commands: excluded });
  const denied = listInForce(sources, CLAUDE_SANDBOX.denyWrite).flatMap(({ entry }) => {
    const path = sandboxPath(entry, root, env);
    return path === null ? [] : [path];
  });
  for (const required of readOnlySet(root, env, protect).paths) {
    if (!denied.some((path) => required.path === path || required.path.startsWith(`${path}/`))) gaps.push({ kind: 'writable', path: required.path });
  }
  return { client, on: gaps.length === 0, gaps };
}

/** A gap in words, for people. */
export function gapWords(gap: BoxGap): string {
  switch (gap.kind) {
    case 'sandbox_off':
      return 'the sandbox is off (sandbox.enabled)';
    case 'fail_open':
      return 'it would run without the sandbox when the sandbox is unavailable (sandbox.failIfUnavailable)';
    case 'escape_hatch':
      return 'the agent may run commands outside it (sandbox.allowUnsandboxedCommands)';
    case 'excluded_commands':
      return `${gap.commands.join(', ')} run outside it (sandbox.excludedCommands)`;
    case 'writable':
      return `${gap.path} is writable (not in sandbox.filesystem.denyWrite)`;
    case 'not_known':
      return "vouch does not know this client's sandbox settings";
  }
}
