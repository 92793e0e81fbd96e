import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findWorkspace, workspaceAt, type Workspace } from '../workspace/find.js';

export type Located =
  | { readonly kind: 'spec'; readonly workspace: Workspace }
  /** No vouch.yaml upwards, but a ledger: the spec may have been removed mid-session. */
  | { readonly kind: 'ledger_only'; readonly workspace: Workspace }
  | { readonly kind: 'none' };

/**
 * The workspace a hook call is about. The nearest vouch.yaml upwards wins;
 * failing that, the nearest .vouch/ledger.db, so that deleting the spec does
 * not hide a session the gate already holds.
 */
export function locateForHook(cwd: string): Located {
  const found = findWorkspace(cwd, false);
  if (found.ok) return { kind: 'spec', workspace: found.value };
  if (found.error.code !== 'workspace_not_found') return { kind: 'none' };
  // findWorkspace resolved symlinks; search from the same canonical place it reports.
  const start = found.error.where ?? cwd;
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.vouch', 'ledger.db'))) return { kind: 'ledger_only', workspace: workspaceAt(dir) };
    if (dirname(dir) === dir) return { kind: 'none' };
  }
}
