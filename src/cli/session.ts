// The session helpers of every command (workspace-session.ts), plus what
// needs the spec parsed in full: the eager spec loader, and the ledger of a
// command that holds only a workspace.
import { fail } from '../core/problem.js';
import { ledgerLocation, type LedgerLocation } from '../ledger/location.js';
import { loadSpec } from '../spec/load.js';
import type { Spec } from '../spec/model.js';
import type { Workspace } from '../workspace/find.js';
import type { Cli } from './io.js';

export * from './workspace-session.js';
export { ledgerProblem } from './ledger-problem.js';

export function specOf(workspace: Workspace, cli: Cli): Spec {
  const loaded = loadSpec(workspace.specPath, cli.io.cwd);
  return loaded.ok ? loaded.value : fail(loaded.error);
}

/**
 * The ledger, for commands that read receipts by id and need no valid spec
 * (`show`): the spec's `ledger:` counts when the spec loads.
 */
export function ledgerOfWorkspace(env: NodeJS.ProcessEnv, workspace: Workspace): LedgerLocation {
  const loaded = env.VOUCH_LEDGER ? undefined : loadSpec(workspace.specPath);
  const at = ledgerLocation(env, workspace.stateDir, loaded?.ok ? loaded.value.ledger : null);
  return at.ok ? at.value : fail(at.error);
}
