import { isClosed } from '../cards/fold.js';
import { loadCard } from '../cards/load.js';
import { Dispatches } from '../fleet/store.js';
import { isOpen } from '../fleet/fold.js';
import type { GcRetained, Ledger } from '../ledger/ledger.js';
import type { StoredSessionEntry } from '../ledger/session-entries.js';

/**
 * What gc must keep whatever its policy says, because something still open
 * decides on it:
 * - an open card closes on the receipts its newest verdict names, and is
 *   refused by a FAIL of the same check recorded after them
 *   (cards/completion.ts): those receipts and every later receipt of the
 *   proof's checks stay;
 * - a dispatch not terminated keeps the receipts its grades name;
 * - a session not seen stopping (no allow or escape after its last tool
 *   call) keeps its trail: its Stop has yet to judge what it touched.
 * Each is read from the ledger as `status` and the gate read it; a card or
 * dispatch whose record is damaged keeps everything it names.
 */
export async function retainedForGc(ledger: Ledger, home: string): Promise<Retained> {
  const receipts = new Set<string>();
  const fromSeq = new Map<string, number>();
  const keepFrom = (check: string, seq: number) => fromSeq.set(check, Math.min(seq, fromSeq.get(check) ?? seq));
  let cards = 0;
  for (const id of await ledger.subjects('card', Number.MAX_SAFE_INTEGER)) {
    const loaded = await loadCard(ledger, home, id);
    if (!loaded || (loaded.kind === 'ok' && isClosed(loaded.view.state))) continue;
    cards++;
    const named =
      loaded.kind === 'ok'
        ? loaded.view.verdicts.flatMap((v) => v.body.receipts)
        : loaded.entries.flatMap((e) => (e.intact && e.body.event === 'verdict' ? e.body.receipts : []));
    for (const recorded of named) {
      receipts.add(recorded.receipt);
      const found = await ledger.findReceipt(recorded.receipt);
      if (found.kind === 'found') keepFrom(found.receipt.body.check_id, found.receipt.seq);
    }
  }
  let dispatches = 0;
  for (const dispatch of await new Dispatches(ledger).all()) {
    if (!isOpen(dispatch)) continue;
    dispatches++;
    for (const grade of dispatch.grades) for (const check of grade.grade.checks) if (check.receipt !== null) receipts.add(check.receipt);
  }
  const sessions = new Set<string>();
  const lastSeen = new Map<string, number>();
  for (const session of await ledger.recentSessions(Number.MAX_SAFE_INTEGER)) {
    const entries = await ledger.sessionEntries(session);
    if (stopped(entries)) continue;
    sessions.add(session);
    lastSeen.set(
      session,
      entries.reduce((latest, entry) => Math.max(latest, Date.parse(entry.body.at) || 0), 0),
    );
  }
  return { receipts, fromSeq, sessions, lastSeen, openCards: cards, openDispatches: dispatches };
}

/** What gc keeps, and when each session not seen stopping last wrote to the ledger (ms since the epoch). */
export interface Retained extends GcRetained {
  readonly lastSeen: ReadonlyMap<string, number>;
}

/** A session whose last tool call was followed by a Stop that let it go (allowed or escaped). */
function stopped(entries: readonly StoredSessionEntry[]): boolean {
  let lastTrail = -1;
  let lastLetGo = -1;
  for (const entry of entries) {
    if (entry.body.kind === 'trail') lastTrail = entry.seq;
    else if (entry.body.agent_id === null && entry.body.decision !== 'block' && entry.body.event === 'Stop') lastLetGo = entry.seq;
  }
  return lastTrail < lastLetGo || lastTrail === -1;
}
