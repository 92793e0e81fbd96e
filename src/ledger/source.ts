import type { Workspace } from '../workspace/find.js';
import type { Ledger } from './ledger.js';

/**
 * How domain code reaches a workspace's ledger. The ledgers belong to the
 * invocation that hands them out (a Session): each is opened once, at its
 * first use, and closed once when the invocation ends. Whoever receives one
 * never closes it.
 */
export interface LedgerSource {
  /** The ledger if one exists; undefined when nothing was ever recorded here (an SQLite file not created yet). */
  read(workspace: Workspace): Promise<Ledger | undefined>;
  /** The ledger, created if needed. */
  write(workspace: Workspace): Promise<Ledger>;
}
