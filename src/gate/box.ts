import { CLAUDE_SANDBOX } from '../install/box/claude-box.js';
import { claudeSettingsSources, listInForce, managedSettingsDir, sandboxPath, settingInForce, type SettingsSource } from '../install/box/claude-settings.js';
import { CODEX_BOX } from '../install/box/codex-box.js';
import { accessOf, CODEX_SYSTEM_DIR, codexLayers, codexSetting, codexTrusts, profileRules, type CodexLayer } from '../install/box/codex-config.js';
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
  /** A path that vouches is not read-only in the sandbox settings (Claude Code: not in sandbox.filesystem.denyWrite; Codex: `rule`, the profile it is writable under): the agent's commands can write it. */
  | { readonly kind: 'writable'; readonly path: string; readonly rule?: string }
  /** Codex: no permission profile is in force (default_permissions unset, or naming one no config defines). */
  | { readonly kind: 'no_profile'; readonly profile: string | null }
  /** Codex: sandbox_mode is set in a config it reads, and then it ignores permission profiles. */
  | { readonly kind: 'legacy_sandbox'; readonly path: string }
  /** Codex: approval_policy is not "never": the agent can ask for a command to run outside the sandbox. */
  | { readonly kind: 'asks_out'; readonly policy: string | null }
  /** Codex: the box is in the project's .codex/config.toml, and Codex reads it only for a project the user's config trusts. */
  | { readonly kind: 'untrusted_project'; readonly path: string }
  /** vouch cannot read this client's sandbox settings (it has none it knows of). */
  | { readonly kind: 'not_known' };

/** The box of a session of this client in this workspace, as its settings say now. */
export function boxState(
  client: string,
  root: string,
  env: NodeJS.ProcessEnv,
  protect: readonly string[],
  managedDir: string | null = managedSettingsDir(),
  codexDir: string = CODEX_SYSTEM_DIR,
): BoxState {
  const box = hookedClient(client)?.hooks.box ?? null;
  if (box === null) return { client, on: false, gaps: [{ kind: 'not_known' }] };
  switch (box) {
    case 'claude-code-sandbox':
      return claudeBox(client, claudeSettingsSources(root, env, managedDir), root, env, protect);
    case 'codex-permissions':
      return codexBox(client, codexLayers(root, env, codexDir), root, env, protect);
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
  const denied = listInForce(sources, CLAUDE_SANDBOX.denyWrite).flatMap(({ entry, source }) => {
    const path = sandboxPath(entry, source, root, env);
    return path === null ? [] : [path];
  });
  for (const required of readOnlySet(root, env, protect).paths) {
    if (!denied.some((path) => required.path === path || required.path.startsWith(`${path}/`))) gaps.push({ kind: 'writable', path: required.path });
  }
  return { client, on: gaps.length === 0, gaps };
}

/**
 * Codex's box as its config layers say: a permission profile in force (not
 * overridden by a legacy sandbox_mode, not full access), no asking out
 * (approval_policy "never"), and every path that vouches read-only under the
 * profile's rules. A project's .codex/config.toml counts only when the
 * user's config trusts the project, as Codex reads it.
 */
function codexBox(client: string, all: readonly CodexLayer[], root: string, env: NodeJS.ProcessEnv, protect: readonly string[]): BoxState {
  const trusted = codexTrusts(all, root);
  const layers = all.filter((layer) => layer.scope !== 'project' || trusted);
  const gaps: BoxGap[] = [];
  for (const layer of layers) if (layer.value !== null && layer.value.sandbox_mode !== undefined) gaps.push({ kind: 'legacy_sandbox', path: layer.path });
  const policy = codexSetting(layers, [CODEX_BOX.approvalPolicy]);
  if (policy !== CODEX_BOX.approvalNever) gaps.push({ kind: 'asks_out', policy: typeof policy === 'string' ? policy : null });
  const name = codexSetting(layers, [CODEX_BOX.defaultPermissions]);
  const rules = typeof name === 'string' ? profileRules(layers, name) : null;
  if (rules === null) gaps.push({ kind: 'no_profile', profile: typeof name === 'string' ? name : null });
  else if (rules === 'unconfined') gaps.push({ kind: 'sandbox_off' });
  else {
    for (const required of readOnlySet(root, env, protect).paths) {
      const access = accessOf(rules, required.path, root, env);
      if (access === 'write') gaps.push({ kind: 'writable', path: required.path, rule: `permissions.${String(name)}.filesystem` });
    }
  }
  // A box in the project's config that Codex does not read (untrusted project): said first, as the cause of what follows.
  const ignored = trusted
    ? undefined
    : all.find(
        (layer) =>
          layer.scope === 'project' &&
          layer.value !== null &&
          (layer.value[CODEX_BOX.defaultPermissions] !== undefined || layer.value.permissions !== undefined),
      );
  if (gaps.length > 0 && ignored) gaps.unshift({ kind: 'untrusted_project', path: ignored.path });
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
      return gap.rule === undefined ? `${gap.path} is writable (not in sandbox.filesystem.denyWrite)` : `${gap.path} is writable (${gap.rule} gives it write)`;
    case 'no_profile':
      return gap.profile === null
        ? 'no permission profile is selected (default_permissions)'
        : `the permission profile "${gap.profile}" is defined nowhere (default_permissions)`;
    case 'legacy_sandbox':
      return `sandbox_mode in ${gap.path} makes Codex ignore the permission profile`;
    case 'asks_out':
      return `the agent may ask to run commands outside it (approval_policy is ${gap.policy === null ? 'unset' : `"${gap.policy}"`}, not "never")`;
    case 'untrusted_project':
      return `Codex reads ${gap.path} only for a trusted project, and the user's config does not trust this one`;
    case 'not_known':
      return "vouch does not know this client's sandbox settings";
  }
}
