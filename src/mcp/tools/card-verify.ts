import * as z from 'zod';
import { cardJson } from '../../cards/read.js';
import { verifyCard } from '../../cards/verify.js';
import { duration } from '../../render/time.js';
import { cardContextOf, cardId, cardLines, cardOutput } from '../card-call.js';
import { reason, verdict } from '../schemas.js';
import { answer, defineTool } from '../tool.js';

/** Runs a card's frozen proof and records the verdict, as `vouch card verify` does. */
export const cardVerifyTool = defineTool({
  name: 'vouch_card_verify',
  title: 'Verify a task card',
  description:
    "Runs the card's proof exactly as it was frozen when the card opened (never the spec as it is now), records one receipt per check and a verdict on the card tied to them. " +
    "Each run is one attempt of the card's budget; a card that has used its budget is refused and waits for a decision. Verifications run one at a time. card_id: the id of the card.",
  input: z.object({ card_id: cardId }).strict(),
  output: z.object({
    ok: z.boolean().describe('the proof PASSed in this run'),
    verdict,
    reason,
    attempt: z.number().int(),
    receipts: z.array(z.object({ check_id: z.string(), receipt: z.string(), hash: z.string(), verdict, reason, fingerprint: z.string() })),
    card: cardOutput,
  }),
  readOnly: false,
  async run(args, call) {
    const ctx = cardContextOf(call);
    return call.verifications.run(async () => {
      const { view, event } = await verifyCard(
        {
          ...ctx,
          onEvent: (e) => {
            if (e.kind === 'check_started') call.progress.start(e.check.id);
            else {
              call.progress.stop();
              call.progress.notify(`${e.check.id}: ${e.receipt.body.verdict} (${e.receipt.body.reason}) in ${duration(e.receipt.body.duration_ms)}`);
            }
          },
        },
        args.card_id,
      );
      const lines = [
        `${event.verdict} (${event.reason}): attempt ${event.attempt} of ${view.contract.budget_attempts}; receipts ${event.receipts.map((r) => `${r.check_id} ${r.verdict} ${r.receipt}`).join(', ')}`,
        ...cardLines(view),
        event.verdict === 'PASS'
          ? view.verify === 'independent' && !['verifier', 'coordinator'].includes(ctx.by.role)
            ? `This card is verified independently: a PASS run by the ${ctx.by.role} does not close it; a verifier must run it.`
            : 'vouch_card_complete closes it while the PASS stays fresh.'
          : "Fix the work, then verify again. vouch_receipt shows the end of a receipt's output.",
      ];
      return answer(
        {
          ok: event.verdict === 'PASS',
          verdict: event.verdict,
          reason: event.reason,
          attempt: event.attempt,
          receipts: [...event.receipts],
          card: cardJson(view) as z.output<typeof cardOutput>,
        },
        lines.join('\n'),
      );
    });
  },
});
