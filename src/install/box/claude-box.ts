import type { Change, EditIntent, Json } from '../intent.js';
import { pathText } from '../json-value.js';
import type { Ecosystem } from './registries.js';
import type { ReadOnlyPath } from './read-only.js';

/** Where Claude Code keeps each part of its sandbox in its settings (checked against 2.1.332). */
export const CLAUDE_SANDBOX = {
  enabled: ['sandbox', 'enabled'],
  failIfUnavailable: ['sandbox', 'failIfUnavailable'],
  allowUnsandboxedCommands: ['sandbox', 'allowUnsandboxedCommands'],
  excludedCommands: ['sandbox', 'excludedCommands'],
  denyWrite: ['sandbox', 'filesystem', 'denyWrite'],
  allowWrite: ['sandbox', 'filesystem', 'allowWrite'],
  allowedDomains: ['sandbox', 'network', 'allowedDomains'],
  permissionsDeny: ['permissions', 'deny'],
} as const;

/** What the box holds for one workspace (or, with relative paths, for every workspace). */
export interface ClaudeBoxPlan {
  readonly readOnly: readonly ReadOnlyPath[];
  readonly ecosystems: readonly Ecosystem[];
}

/**
 * The edit that puts the agent in Claude Code's own OS sandbox: every Bash
 * command and whatever it starts runs under bubblewrap (Seatbelt on macOS)
 * with what vouches read-only. `failIfUnavailable`: no sandbox, no session
 * (never a silent run without it); `allowUnsandboxedCommands: false`: the
 * agent cannot ask its way out (`dangerouslyDisableSandbox`). The file
 * tools (Write, Edit) are not sandboxed: matching `permissions.deny` rules
 * hold them, beside vouch's own guard. The registries the project's
 * runners use are let through the sandbox's network filter and their
 * caches made writable, so honest installs still work.
 *
 * The same changes are stated whatever the plan lists (an empty list adds
 * nothing), so a later install or uninstall finds this one's record.
 */
export function claudeBoxIntent(path: string, plan: ClaudeBoxPlan): EditIntent {
  const denyWrite = plan.readOnly.map((entry) => entry.path);
  const allowWrite = [...new Set(plan.ecosystems.flatMap((eco) => eco.caches))];
  const domains = [...new Set(plan.ecosystems.flatMap((eco) => eco.domains))];
  const deny = plan.readOnly.map(editRule);
  const changes: Change[] = [
    { kind: 'json-set', at: CLAUDE_SANDBOX.enabled, value: true },
    { kind: 'json-set', at: CLAUDE_SANDBOX.failIfUnavailable, value: true },
    { kind: 'json-set', at: CLAUDE_SANDBOX.allowUnsandboxedCommands, value: false },
    { kind: 'json-append', at: CLAUDE_SANDBOX.denyWrite, entries: denyWrite },
    { kind: 'json-append', at: CLAUDE_SANDBOX.allowWrite, entries: allowWrite },
    { kind: 'json-append', at: CLAUDE_SANDBOX.allowedDomains, entries: domains },
    { kind: 'json-append', at: CLAUDE_SANDBOX.permissionsDeny, entries: deny },
  ];
  return {
    path,
    format: 'json',
    summary: `run the agent's commands in Claude Code's sandbox, with ${denyWrite.length} paths that vouch read-only${domains.length > 0 ? ` and ${domains.join(', ')} reachable` : ''}`,
    changes,
    manual: [
      `open ${path} (create it as {} if absent)`,
      ...changes.flatMap((change) => {
        if (change.kind === 'json-set') return [`set ${pathText(change.at)} to ${JSON.stringify(change.value)}`];
        if (change.kind === 'json-append' && change.entries.length > 0) return [`add to the list at ${pathText(change.at)}: ${JSON.stringify(change.entries)}`];
        return [];
      }),
    ],
    onlyWithRecord: true,
  };
}

/** Claude Code's permission rule for the file tools: `//` starts an absolute path; a relative one is the workspace's. */
export function editRule(entry: ReadOnlyPath): Json {
  const at = entry.path.startsWith('/') ? `/${entry.path}` : entry.path;
  return `Edit(${entry.dir ? `${at}/**` : at})`;
}
