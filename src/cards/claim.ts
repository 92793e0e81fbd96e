import { nowOf, cardSigner, type CardContext } from './context.js';
import { requireOpen } from './closed.js';
import { everSigned, type CardView } from './fold.js';
import { cardToActOn } from './load.js';
import type { ClaimedEvent } from './model.js';
import { requireRole } from './rules.js';
import { appendCardEvent } from './store.js';

/** A worker starts on the card. A PASS recorded before the newest claim no longer closes it: the work since is unproven. */
export async function claimCard(ctx: CardContext, id: string): Promise<CardView> {
  requireRole(ctx.by, 'claim');
  const ledger = await ctx.ledgers.write(ctx.workspace);
  const view = await cardToActOn(ctx, ledger, id);
  requireOpen(view, 'claim');
  await appendCardEvent<ClaimedEvent>(ledger, id, { event: 'claimed' }, { by: ctx.by, now: nowOf(ctx), sign: await cardSigner(ctx, view.proof.policy, everSigned(view)) });
  return await cardToActOn(ctx, ledger, id);
}
