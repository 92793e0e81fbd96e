import { fail } from '../core/problem.js';
import { requireWhy } from './complete.js';
import { allowedSpec, cardSigner, nowOf, type CardContext } from './context.js';
import { proofProblems, scopeOf, type ProofInput } from './contract.js';
import { requireOpen } from './closed.js';
import { everSigned, type CardView } from './fold.js';
import { cardToActOn } from './load.js';
import type { DecisionEvent } from './model.js';
import { freezeProof } from './open.js';
import { requireRole } from './rules.js';
import { appendCardEvent } from './store.js';

/**
 * The owner changes a card's proof: a new snapshot, frozen now from the
 * allowed spec, recorded as a reprove decision with the reason. Verdicts of
 * the old proof no longer count. Refused inside an agent run and for every
 * other role: the one who could profit from an easier proof never moves it.
 */
export async function reproveCard(ctx: CardContext, id: string, input: ProofInput & { readonly why: string | undefined }): Promise<CardView> {
  requireRole(ctx.by, 'reprove');
  const why = requireWhy(input.why, 'reprove');
  const problems = proofProblems(input);
  const ledger = await ctx.ledgers.write(ctx.workspace);
  const view = await cardToActOn(ctx, ledger, id);
  requireOpen(view, 'reprove');
  const scope = scopeOf(input, view.contract.artifact, problems);
  if (problems.length > 0) {
    fail({
      code: 'card_incomplete',
      message: `the new proof is not valid (${problems.length} problem${problems.length === 1 ? '' : 's'})`,
      where: 'vouch card reprove',
      more: problems,
    });
  }
  const proof = freezeProof(await allowedSpec(ctx), id, input, scope);
  if (proof.digest === view.proof.digest) {
    fail({ code: 'card_decision_invalid', message: `the new proof is the proof in force (digest ${proof.digest.slice(0, 16)}…): nothing changes` });
  }
  await appendCardEvent<DecisionEvent>(
    ledger,
    id,
    { event: 'decision', decision: 'reprove', why, changes: null, script_sha256: null, into: null, proof },
    { by: ctx.by, now: nowOf(ctx), sign: await cardSigner(ctx, proof.policy, everSigned(view)) },
  );
  return await cardToActOn(ctx, ledger, id);
}
