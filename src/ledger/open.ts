import { loadSpec } from '../spec/load.js';
import type { Workspace } from '../workspace/find.js';
import { LedgerError } from './ledger.js';
import { ledgerLocation, type LedgerLocation } from './location.js';

export { openLedgerAt } from './open-at.js';

/**
 * For front ends that hold only a workspace (hooks): its ledger's location,
 * VOUCH_LEDGER else the spec's `ledger:` (when the spec loads) else SQLite.
 * A malformed URL is a ledger that cannot be used.
 */
export function workspaceLedger(env: NodeJS.ProcessEnv, workspace: Workspace): LedgerLocation {
  const loaded = env.VOUCH_LEDGER ? undefined : loadSpec(workspace.specPath);
  const at = ledgerLocation(env, workspace.stateDir, loaded?.ok ? loaded.value.ledger : null);
  if (!at.ok) throw new LedgerError('unreadable', at.error.message, at.error.where ?? 'VOUCH_LEDGER');
  return at.value;
}
