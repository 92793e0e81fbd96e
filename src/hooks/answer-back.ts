import { askedCards, forgetAsked } from '../cards/asked.js';
import type { CardContext } from '../cards/context.js';
import type { AnsweredEvent, AskingSession, CardActor } from '../cards/model.js';
import type { Client } from '../clients/registry.js';
import { locateForHook } from '../gate/locate.js';
import type { HookContext } from './context.js';
import type { HookPayload } from './payload.js';

/**
 * Stop of a session that opened cards: the one line each card owes it (it
 * closed, or it asks), each shown once. Delivering is recorded on the card
 * (an `answered` event), so the next Stop does not show it again. Only the
 * session the card was opened from is shown it, and only at its own Stop
 * (a subagent's SubagentStop carries the same session id: never there).
 */
export async function answersFor(client: Client, payload: HookPayload, ctx: HookContext): Promise<string[]> {
  if (payload.session === null) return [];
  const asker: AskingSession = { client, session: payload.session };
  const place = locateForHook(payload.cwd ?? ctx.fallbackCwd);
  if (place.kind !== 'spec') return [];
  const root = place.workspace.root;
  const cards = askedCards(ctx.home, asker, root);
  // A session that opened no card costs one missing file.
  if (cards.length === 0) return [];
  const [{ cardSigner, nowOf }, { everSigned, isClosed }, { loadCard }, { appendCardEvent }, { pendingAnswer }, { answerLine }] = await Promise.all([
    import('../cards/context.js'),
    import('../cards/fold.js'),
    import('../cards/load.js'),
    import('../cards/store.js'),
    import('../cards/answer.js'),
    import('../render/card-answer.js'),
  ]);
  const by: CardActor = { role: 'worker', role_from: 'default', agent: client, via: 'hook' };
  const cardCtx: CardContext = {
    home: ctx.home,
    env: ctx.env,
    ...(ctx.now && { now: ctx.now }),
    workspace: place.workspace,
    by,
    ledgers: ctx.ledgers,
    specs: ctx.specs,
  };
  const ledger = await ctx.ledgers.write(place.workspace);
  const lines: string[] = [];
  const settled: string[] = [];
  for (const id of cards) {
    const loaded = await loadCard(ledger, ctx.home, id);
    if (loaded === undefined) {
      settled.push(id);
      continue;
    }
    // A damaged card says nothing it could not stand behind; it stays listed for `vouch audit` to name.
    if (loaded.kind !== 'ok') continue;
    const view = loaded.view;
    const from = view.opened.body.asked_from;
    if (from?.client !== asker.client || from.session !== asker.session) {
      settled.push(id);
      continue;
    }
    const answer = await pendingAnswer(ledger, view);
    if (answer !== null) {
      const line = answerLine(view.id, answer);
      await appendCardEvent<AnsweredEvent>(
        ledger,
        view.id,
        { event: 'answered', answer: answer.event, to: asker, line },
        { by, now: nowOf(cardCtx), sign: await cardSigner(cardCtx, view.proof.policy, everSigned(view)) },
      );
      lines.push(line);
    }
    if (isClosed(view.state)) settled.push(id);
  }
  forgetAsked(ctx.home, asker, root, settled);
  return lines;
}
