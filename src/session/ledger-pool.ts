import { LedgerError, type Ledger } from '../ledger/ledger.js';
import type { LedgerLocation } from '../ledger/location.js';
import type { Trace } from './trace.js';

/**
 * The ledgers of one invocation, by location: each opened at its first use
 * (created when a writer asks), shared by everything the invocation does,
 * and closed once, by `close`. A reader that finds no SQLite file gets
 * undefined and nothing is remembered, so a later writer still creates it.
 */
export class LedgerPool {
  private readonly open = new Map<string, Ledger>();
  private closed = false;

  constructor(private readonly trace: Trace) {}

  read(at: LedgerLocation): Promise<Ledger | undefined> {
    return this.get(at, false);
  }

  async write(at: LedgerLocation): Promise<Ledger> {
    const ledger = await this.get(at, true);
    if (!ledger) throw new LedgerError('unreadable', 'the ledger could not be created', keyOf(at));
    return ledger;
  }

  /** Closes every ledger this invocation opened; later use is a bug. */
  async close(): Promise<void> {
    this.closed = true;
    const ledgers = [...this.open.values()];
    this.open.clear();
    for (const ledger of ledgers) await ledger.close();
  }

  private async get(at: LedgerLocation, create: boolean): Promise<Ledger | undefined> {
    if (this.closed) throw new Error('bug: a ledger was asked for after the session closed');
    const key = keyOf(at);
    const known = this.open.get(key);
    if (known) return known;
    // Loaded at the first ledger an invocation opens: the guard and --version never load the SQLite binding.
    const { openLedgerAt } = await import('../ledger/open-at.js');
    const ledger = openLedgerAt(at, create);
    if (ledger) {
      this.trace.count('ledger_opens');
      this.open.set(key, ledger);
    }
    return ledger;
  }
}

function keyOf(at: LedgerLocation): string {
  return at.kind === 'sqlite' ? at.path : `${at.url}#${at.schema}`;
}
