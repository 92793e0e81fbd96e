import * as z from 'zod';
import { completeCard } from '../../cards/complete.js';
import { cardJson } from '../../cards/read.js';
import { cardContextOf, cardId, cardLines, cardOutput } from '../card-call.js';
import { answer, defineTool } from '../tool.js';

/** Closes a card on a fresh PASS of its frozen proof; anything else is an error result with the reason code. */
export const cardCompleteTool = defineTool({
  name: 'vouch_card_complete',
  title: 'Complete a task card',
  description:
    'Closes the card, only if the newest verdict of its frozen proof is a PASS recorded after the newest claim, still fresh (no covered file changed), with no FAIL since, run by a role allowed to close it. ' +
    'Otherwise the result is an error with the reason (card_no_verdict, card_not_passing, card_pass_before_claim, card_stale, card_not_landed, card_failed_since, card_pass_not_independent, card_pass_self_made (the PASS was recorded inside an agent run: a person must run the proof), card_role_refused...). There is no override here: only the owner, at a terminal, can force a close. card_id: the id of the card.',
  input: z.object({ card_id: cardId }).strict(),
  output: z.object({ card: cardOutput }),
  readOnly: false,
  async run(args, call) {
    const view = await completeCard(cardContextOf(call), args.card_id);
    return answer({ card: cardJson(view) as z.output<typeof cardOutput> }, [`Closed on a fresh PASS of its frozen proof.`, ...cardLines(view)].join('\n'));
  },
});
