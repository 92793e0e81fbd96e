import * as z from 'zod';
import { decideCard } from '../../cards/decide.js';
import { cardJson } from '../../cards/read.js';
import { cardContextOf, cardId, cardLines, cardOutput } from '../card-call.js';
import { answer, defineTool } from '../tool.js';

/** The coordinator's answer to a card event: retry or ask. The decisions that change what closes a card stay a person's. */
export const cardDecideTool = defineTool({
  name: 'vouch_card_decide',
  title: 'Decide on a task card',
  description:
    "Records the coordinator's one decision on a card's newest event: retry (frees the card for a fresh worker; why: the reason) or ask (question: the one question for the person; the proof's last two failure lines are stored with it). " +
    "One decision per card event: a second before the card moves is refused (card_decision_taken). rescope, split and abandon are a person's at a terminal: ask for them.",
  input: z
    .object({
      card_id: cardId,
      decision: z.enum(['retry', 'ask']),
      why: z.string().max(2000).optional(),
      question: z.string().max(2000).optional(),
    })
    .strict(),
  output: z.object({ card: cardOutput }),
  readOnly: false,
  async run(args, call) {
    const view = await decideCard(cardContextOf(call), args.card_id, {
      decision: args.decision,
      why: args.why,
      question: args.question,
      changes: {},
      proofGiven: false,
      sha256: undefined,
      into: [],
    });
    return answer({ card: cardJson(view) as z.output<typeof cardOutput> }, [`${args.decision} recorded.`, ...cardLines(view)].join('\n'));
  },
});
