import type { GateContext } from '../gate/context.js';
import type { Client } from '../ledger/session-entries.js';
import { isWatched } from '../gate/session-record.js';
import { LedgerError } from '../ledger/ledger.js';
import type { Workspace } from '../workspace/find.js';

/** A session the ledger knows in a workspace, with no record of it under VOUCH_HOME. */
export interface LostRecord {
  readonly workspace: string;
  /** How many of the session's entries (trail, gate decisions) the ledger holds there. */
  readonly entries: number;
}

/**
 * Every hook call records its session in the workspace before it writes
 * anything to that workspace's ledger (hooks/watch-call.ts; a stop, itself).
 * So a session whose entries are in the ledger and whose record is not
 * under VOUCH_HOME had its record removed (one `os.remove` in a script):
 * that is damage, never a fresh start, or the stop would take a new
 * baseline "from now" and a protected test rewritten earlier in the session
 * would never be flagged. The session's other hooks leave it lost too
 * (hooks/watch-call.ts), or the next tool call would record it afresh. One
 * stat when the record is there.
 */
export async function lostRecord(
  ctx: Pick<GateContext, 'home' | 'ledgers'>,
  client: Client,
  session: string,
  workspace: Workspace,
): Promise<LostRecord | null> {
  if (isWatched(ctx.home, client, session, workspace.root)) return null;
  try {
    const ledger = await ctx.ledgers.read(workspace);
    if (!ledger) return null;
    const entries = (await ledger.sessionEntries(session)).filter((entry) => entry.body.client === client).length;
    return entries === 0 ? null : { workspace: workspace.root, entries };
  } catch (error) {
    // The stop reads the same ledger again and reports it as unusable.
    if (error instanceof LedgerError) return null;
    throw error;
  }
}
