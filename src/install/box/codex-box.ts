import { isAbsolute, join } from 'node:path';
import { codexHome } from '../../clients/codex.js';
import type { Scope } from '../../clients/descriptor.js';
import type { Change, EditIntent, Json } from '../intent.js';
import type { ReadOnlyPath } from './read-only.js';

/**
 * Codex's box, as its config.toml holds it (checked against 0.171.0): a
 * permission profile of vouch's, selected by the top-level
 * `default_permissions`, and `approval_policy = "never"` so the agent
 * cannot ask to run a command outside it. Codex runs every shell command
 * (and what it starts) under bubblewrap and seccomp on Linux, Seatbelt on
 * macOS, with the profile's filesystem rules; the most specific rule for a
 * path wins, so what vouches is held read-only inside a writable workspace.
 */
export const CODEX_BOX = {
  profile: 'vouch',
  defaultPermissions: 'default_permissions',
  approvalPolicy: 'approval_policy',
  approvalNever: 'never',
} as const;

/** Codex's config file for a scope: the project's .codex/config.toml (read when Codex trusts the project), or $CODEX_HOME/config.toml. */
export function codexConfigPath(scope: Scope, root: string | null, env: NodeJS.ProcessEnv): string {
  if (scope === 'project') return join(root!, '.codex', 'config.toml');
  return join(codexHome(env), 'config.toml');
}

/**
 * The profile's filesystem rules: everything readable, the project roots
 * writable (the workspace, as Codex's own `:workspace` profile has it), /tmp
 * and $TMPDIR writable (honest scratch files), and each path that vouches
 * read-only. Absolute paths are keys of their own; paths relative to the
 * workspace (a user-scope install, for every project) sit under
 * `:project_roots`.
 */
export function codexFilesystem(readOnly: readonly ReadOnlyPath[]): { readonly [key: string]: Json } {
  const roots: Record<string, Json> = { '.': 'write' };
  const rules: Record<string, Json> = { ':root': 'read', ':project_roots': roots, ':slash_tmp': 'write', ':tmpdir': 'write' };
  for (const entry of readOnly) {
    if (isAbsolute(entry.path)) rules[entry.path] = 'read';
    else roots[entry.path] = 'read';
  }
  return rules;
}

/**
 * The edit that puts the agent in Codex's sandbox with what vouches
 * read-only. The same changes are stated whatever the list holds, so a later
 * install or uninstall finds this one's record (the list itself is part of
 * the table, as on Claude Code).
 */
export function codexBoxIntent(path: string, readOnly: readonly ReadOnlyPath[]): EditIntent {
  const filesystem = codexFilesystem(readOnly);
  const changes: Change[] = [
    { kind: 'toml-key', at: [CODEX_BOX.defaultPermissions], value: CODEX_BOX.profile },
    { kind: 'toml-key', at: [CODEX_BOX.approvalPolicy], value: CODEX_BOX.approvalNever },
    { kind: 'toml-table', at: ['permissions', CODEX_BOX.profile], value: { filesystem } },
  ];
  return {
    path,
    format: 'toml',
    summary: `run the agent's commands in Codex's sandbox (permission profile "${CODEX_BOX.profile}", no asking out), with ${readOnly.length} paths that vouch read-only`,
    changes,
    manual: [
      `open ${path} (create it if absent)`,
      `put these two lines at its top, before any [table]: ${CODEX_BOX.defaultPermissions} = "${CODEX_BOX.profile}" and ${CODEX_BOX.approvalPolicy} = "${CODEX_BOX.approvalNever}"`,
      `add the table [permissions.${CODEX_BOX.profile}.filesystem] with: ${Object.entries(filesystem)
        .map(([key, value]) => `${JSON.stringify(key)} = ${typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value).replace(/:/g, ' = ')}`)
        .join('; ')}`,
      'and remove any sandbox_mode setting: Codex ignores permission profiles while one is set',
    ],
    onlyWithRecord: true,
  };
}
