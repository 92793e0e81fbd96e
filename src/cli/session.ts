// The session helpers of every command (workspace-session.ts), plus the
// eager spec loader for commands that always validate vouch.yaml in full.
import { fail } from '../core/problem.js';
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
