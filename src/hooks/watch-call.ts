import { existsSync } from 'node:fs';
import { locateForHook } from '../gate/locate.js';
import { protectListOf } from '../guard/protect-list.js';
import type { GateContext } from '../gate/context.js';
import { isWatched, watchSession } from '../gate/session-record.js';
import type { Client } from '../ledger/session-entries.js';

/**
 * Records, at a session's first hook call in a workspace, that it works
 * there and what its protected files and the gate's wiring were (see
 * gate/session-record.ts). Later calls cost a stat or two.
 */
export async function watchCall(client: Client, session: string, cwd: string, ctx: Pick<GateContext, 'home' | 'env' | 'now' | 'ledgers'>): Promise<void> {
  const place = locateForHook(cwd);
  if (place.kind !== 'spec') return;
  if (isWatched(ctx.home, client, session, place.workspace.root)) return;
  // A session the ledger already knows here whose record is gone stays without one: its stop blocks on that (stop/lost-record.ts).
  const { lostRecord } = await import('../stop/lost-record.js');
  if ((await lostRecord(ctx, client, session, place.workspace)) !== null) return;
  const { globs } = await protectListOf(place.workspace, existsSync(place.workspace.specPath), ctx.home);
  await watchSession(ctx.home, client, session, place.workspace, globs, ctx.env, (ctx.now ?? (() => new Date()))());
}
