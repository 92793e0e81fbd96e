import { LedgerError, type Ledger } from './ledger.js';
import type { LedgerLocation } from './location.js';
import { LazyPgLedger } from './postgres/lazy.js';
import { openSqliteLedger } from './sqlite/sqlite-ledger.js';

// Its own module, apart from workspaceLedger (open.ts), which reads the
// spec: status and verify open their ledger without loading the YAML parser.

/** Opens a ledger at a location; undefined when an SQLite file does not exist and `create` is false. */
export function openLedgerAt(at: LedgerLocation, create: boolean): Ledger | undefined {
  if (at.kind === 'postgres') return new LazyPgLedger(at);
  const ledger = openSqliteLedger(at.path, { create });
  if (create && !ledger) throw new LedgerError('unreadable', 'the ledger could not be created', at.path);
  return ledger;
}
