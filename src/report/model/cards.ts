import { cardView, listCards } from '../../cards/read.js';
import type { CardActor } from '../../cards/model.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { ReportCard } from './types.js';

/** Only the actor's fields the schema names: a record carries what its writer put there. */
function actor(by: CardActor): ReportCard['decisions'][number]['by'] {
  return { role: by.role, role_from: by.role_from, agent: by.agent, via: by.via };
}

/** Task cards with their decisions and an owner's forced close, from the cards read API; damaged events are not read. */
export async function cardEntries(ledger: Ledger | undefined, home: string): Promise<ReportCard[]> {
  if (!ledger) return [];
  const cards = await listCards(ledger, home);
  return Promise.all(
    cards.map(async (card) => {
      const loaded = await cardView(ledger, home, card.id);
      const view = loaded?.kind === 'ok' ? loaded.view : null;
      const decisions = view ? view.events.flatMap((e) => (e.intact && e.body.event === 'decision' ? [e.body] : [])) : [];
      const forced = view?.ownerClose?.body ?? null;
      return {
        ...card,
        opened_by: card.opened_by ? actor(card.opened_by) : null,
        decisions: decisions.map((d) => ({ at: d.at, decision: d.decision, why: d.why, by: actor(d.by), into: d.into })),
        owner_close: forced ? { at: forced.at, why: forced.why, by: actor(forced.by) } : null,
      };
    }),
  );
}
