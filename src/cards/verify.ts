import { fail } from '../core/problem.js';
import { cardSigner, nowOf, requireTrustedWorkspace, type CardContext } from './context.js';
import { requireOpen } from './closed.js';
import { everSigned, type CardView } from './fold.js';
import { cardToActOn } from './load.js';
import type { VerdictEvent } from './model.js';
import { requireRole } from './rules.js';
import { runProof, type ProofRun } from './run.js';
import { appendCardEvent } from './store.js';

export interface CardVerifyResult {
  readonly view: CardView;
  readonly run: ProofRun;
  readonly event: VerdictEvent;
}

/**
 * Runs the card's frozen proof and records a verdict tied to the receipts
 * it appended. Each run is an attempt; a card that has used its budget stops
 * here and asks for a decision.
 */
export async function verifyCard(ctx: CardContext, id: string): Promise<CardVerifyResult> {
  requireRole(ctx.by, 'verify');
  await requireTrustedWorkspace(ctx);
  const ledger = await ctx.ledgers.write(ctx.workspace);
  const view = await cardToActOn(ctx, ledger, id);
  requireOpen(view, 'verify');
  if (view.attempts >= view.contract.budget_attempts) {
    fail({
      code: 'card_over_budget',
      message: `card ${id} has used all ${view.contract.budget_attempts} attempts of its budget (newest verdict: ${view.grade}): it stops here and asks`,
      hint: 'a coordinator or the owner decides: `vouch card decide ID rescope --budget-attempts N --why ...`, `split` or `abandon`',
    });
  }
  const sign = await cardSigner(ctx, view.proof.policy, everSigned(view));
  const run = await runProof(ctx, view, ledger, sign);
  const event = await appendCardEvent<VerdictEvent>(
    ledger,
    id,
    {
      event: 'verdict',
      proof_digest: view.proof.digest,
      verdict: run.verdict,
      reason: run.reason,
      attempt: view.attempts + 1,
      receipts: run.recorded,
      script: run.script,
    },
    { by: ctx.by, now: nowOf(ctx), ...(sign && { sign }) },
  );
  return { view: await cardToActOn(ctx, ledger, id), run, event };
}
