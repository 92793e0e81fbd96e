import * as z from 'zod';
import type { CardContext } from '../cards/context.js';
import type { CardView } from '../cards/fold.js';
import { CARD_ID_PATTERN } from '../cards/store.js';
import { actorOf } from '../cards/roles.js';
import { cardContext } from '../session/contexts.js';
import { fail } from '../core/problem.js';
import type { WorkspaceCall } from './workspace-call.js';

/*
 * What the card tools share: the id they take (nothing else), the card they
 * answer with, and the engine context of a call. An MCP caller is an agent:
 * its role is VOUCH_ROLE from the server's environment (set in the client's
 * entry for a verifier or coordinator agent), else worker; never the owner.
 */

export const cardId = z.string().regex(CARD_ID_PATTERN).describe('a card id as `vouch card list` shows it: c- and 8 lowercase characters');

export const cardOutput = z.looseObject({
  id: z.string(),
  state: z
    .enum(['open', 'claimed', 'done', 'owner_closed', 'split', 'abandoned'])
    .describe('owner_closed: closed by the owner WITHOUT a fresh PASS; never a pass'),
  passed: z.boolean().describe('true only when the card was closed on a fresh PASS of its frozen proof (state done)'),
  grade: z.enum(['PASS', 'FAIL', 'UNKNOWN', 'ungraded']).describe('the newest verdict of the proof in force; ungraded when never verified'),
  contract: z.looseObject({ goal: z.string(), artifact: z.string(), done_when: z.string(), budget_attempts: z.number().int() }),
  verify: z.enum(['proof', 'independent']),
  attempts: z.number().int(),
  over_budget: z.boolean(),
  events: z
    .array(z.looseObject({ seq: z.number().int(), kind: z.string(), intact: z.boolean() }))
    .describe(
      'every event of the card, oldest first, by kind: opened, claimed, verdict, decision, completed, owner_close, audit, follow_up (damaged when altered)',
    ),
});

export function cardContextOf(call: WorkspaceCall): CardContext {
  const by = actorOf(call.env, 'mcp');
  if (!by.ok) return fail(by.error);
  return cardContext(call.session, call.workspace, by.value);
}

/** The card in words for a model: where it stands and what closes it. */
export function cardLines(view: CardView): string[] {
  const state = view.state === 'owner_closed' ? 'owner_close (closed by the owner WITHOUT a fresh PASS: not a pass)' : view.state;
  return [
    `card ${view.id}: ${state}; newest verdict of its frozen proof: ${view.grade}; attempts ${view.attempts}/${view.contract.budget_attempts}${view.overBudget ? ' (budget spent: it stops and asks a coordinator or the owner)' : ''}; verify: ${view.verify}`,
    `goal: ${view.contract.goal}`,
    `done when: ${view.contract.done_when}`,
    `proof: ${view.proof.kind === 'checks' ? `checks ${view.proof.checks.map((c) => c.id).join(', ')}` : `script ${view.proof.path}`}, frozen when the card opened; only a PASS of it, fresh, closes the card.`,
  ];
}
