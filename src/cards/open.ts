import { runSession } from '../clients/agent-run.js';
import { fail } from '../core/problem.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Spec } from '../spec/model.js';
import { allowedSpec, cardSigner, nowOf, type CardContext } from './context.js';
import { checkOpenInput, DEFAULT_BUDGET_ATTEMPTS, type OpenInput, type ProofInput } from './contract.js';
import type { CardView } from './fold.js';
import { cardToActOn } from './load.js';
import type { OpenedEvent, ProofSnapshot, VerifyMode } from './model.js';
import { requireRole } from './rules.js';
import { policyOf, proofChecks, snapshotChecks, snapshotScript } from './snapshot.js';
import { noteAsked } from './asked.js';
import { appendCardEvent, newCardId } from './store.js';

/**
 * Opens a card: a contract (goal, artifact, done-when, proof, budget) whose
 * proof is frozen now, from the spec a person allowed: the full definitions
 * of its checks and their digests, or which script the verifier will write.
 */
export async function openCard(ctx: CardContext, input: OpenInput): Promise<CardView> {
  requireRole(ctx.by, 'open');
  const { artifact, scope } = checkOpenInput(input);
  const spec = await allowedSpec(ctx);
  const ledger = await ctx.ledgers.write(ctx.workspace);
  const id = await freshId(ledger);
  const proof = freezeProof(spec, id, input, scope);
  const requested: VerifyMode = input.verify ?? 'proof';
  await appendCardEvent<OpenedEvent>(
    ledger,
    id,
    {
      event: 'opened',
      goal: input.goal!.trim(),
      artifact,
      done_when: input.doneWhen!.trim(),
      lands_at: input.landsAt?.trim() || null,
      budget_attempts: input.budgetAttempts ?? DEFAULT_BUDGET_ATTEMPTS,
      budget_tokens: input.budgetTokens ?? null,
      // A card whose proof is a script is always verified independently.
      verify: proof.kind === 'script' ? 'independent' : requested,
      verify_requested: requested,
      proof,
      follow_up_of: null,
      depth: 0,
      asked_from: runSession(ctx.env),
    },
    { by: ctx.by, now: nowOf(ctx), sign: await cardSigner(ctx, proof.policy) },
  );
  const view = await cardToActOn(ctx, ledger, id);
  if (view.opened.body.asked_from) noteAsked(ctx.home, view.opened.body.asked_from, ctx.workspace.root, id);
  return view;
}

/** The proof, frozen from the allowed spec: the named checks' full definitions, or the script's place and scope. */
export function freezeProof(spec: Spec, card: string, input: ProofInput, scope: readonly string[]): ProofSnapshot {
  if (input.proofScript !== undefined) {
    if (scope.length === 0) return fail({ code: 'card_incomplete', message: 'a script proof needs a scope: --scope GLOB, or an artifact', where: '--scope' });
    return snapshotScript(policyOf(spec), { card, name: input.proofScript, scope, timeout: input.timeout, boundSha256: null });
  }
  return snapshotChecks(spec, proofChecks(spec, input.proof));
}

async function freshId(ledger: Ledger): Promise<string> {
  for (;;) {
    const id = newCardId();
    if ((await ledger.events('card', id)).length === 0) return id;
  }
}
