import { fail } from '../core/problem.js';
import { cardSigner, nowOf, type CardContext } from './context.js';
import { requireOpen } from './closed.js';
import { judgeCompletion } from './completion.js';
import { everSigned, type CardView } from './fold.js';
import { cardToActOn } from './load.js';
import type { CompletedEvent, OwnerCloseEvent } from './model.js';
import { requireRole } from './rules.js';
import { appendCardEvent } from './store.js';

/** Closes the card on a fresh PASS of its frozen proof, or refuses with the reason (see completion.ts). */
export async function completeCard(ctx: CardContext, id: string): Promise<CardView> {
  const ledger = await ctx.ledgers.write(ctx.workspace);
  const view = await cardToActOn(ctx, ledger, id);
  requireOpen(view, 'complete');
  requireRole(ctx.by, 'complete', view.verify);
  const judged = await judgeCompletion(ctx, ledger, view);
  if (!judged.ok) return fail(judged.problem);
  await appendCardEvent<CompletedEvent>(
    ledger,
    id,
    { event: 'completed', verdict_event: judged.pass.body.id, receipts: judged.pass.body.receipts },
    { by: ctx.by, now: nowOf(ctx), sign: await cardSigner(ctx, view.proof.policy, everSigned(view)) },
  );
  // One lucky green run does not stand alone: the proof runs once more, on its own, as the card closes.
  const { auditOnClose } = await import('./audit.js');
  await auditOnClose(ctx, ledger, await cardToActOn(ctx, ledger, id));
  return await cardToActOn(ctx, ledger, id);
}

/**
 * The owner's override: closes the card without a fresh PASS. Recorded as
 * owner_close, with the reason and the newest verdict as it stood, and shown
 * as such everywhere: never as done, never as a pass.
 */
export async function forceCloseCard(ctx: CardContext, id: string, why: string | undefined): Promise<CardView> {
  requireRole(ctx.by, 'force_close');
  const reason = requireWhy(why, 'complete --force');
  const ledger = await ctx.ledgers.write(ctx.workspace);
  const view = await cardToActOn(ctx, ledger, id);
  requireOpen(view, 'force-close');
  const newest = view.verdicts[view.verdicts.length - 1];
  await appendCardEvent<OwnerCloseEvent>(
    ledger,
    id,
    { event: 'owner_close', why: reason, last_verdict: newest ? { event: newest.body.id, verdict: newest.body.verdict, reason: newest.body.reason } : null },
    { by: ctx.by, now: nowOf(ctx), sign: await cardSigner(ctx, view.proof.policy, everSigned(view)) },
  );
  return await cardToActOn(ctx, ledger, id);
}

export function requireWhy(why: string | undefined, act: string): string {
  const text = why?.trim() ?? '';
  if (text === '')
    return fail({
      code: 'usage',
      message: `${act} needs --why TEXT: the reason is recorded with the decision`,
      where: '--why',
      expected: 'a non-empty reason',
    });
  return text;
}
