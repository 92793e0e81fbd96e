import { loadSpec } from '../spec/load.js';
import type { Workspace } from '../workspace/find.js';
import { LedgerError, type Ledger } from './ledger.js';
import { ledgerLocation, type LedgerLocation } from './location.js';
import { LazyPgLedger } from './postgres/lazy.js';
import { openSqliteLedger } from './sqlite/sqlite-ledger.js';

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

/** Opens a ledger at a location; undefined when an SQLite file does not exist and `create` is false. */
export function openLedgerAt(at: LedgerLocation, create: boolean): Ledger | undefined {
  if (at.kind === 'postgres') return new LazyPgLedger(at);
  const ledger = openSqliteLedger(at.path, { create });
  if (create && !ledger) throw new LedgerError('unreadable', 'the ledger could not be created', at.path);
  return ledger;
}
