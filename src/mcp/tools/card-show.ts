import * as z from 'zod';
import { judgeCompletion } from '../../cards/completion.js';
import { isClosed } from '../../cards/fold.js';
import { cardToActOn, notFound } from '../../cards/load.js';
import { cardJson } from '../../cards/read.js';
import { cardContextOf, cardId, cardLines, cardOutput } from '../card-call.js';
import { answer, defineTool } from '../tool.js';

/** One task card: its contract, frozen proof, events, and whether it would close now. */
export const cardShowTool = defineTool({
  name: 'vouch_card_show',
  title: 'Show a task card',
  description:
    'One task card: its goal, artifact and done-when, the proof frozen when it opened, every event with who wrote it, and whether it would close now (a fresh PASS of that proof). Runs nothing. ' +
    'card_id: the id of the card.',
  input: z.object({ card_id: cardId }).strict(),
  output: z.object({ card: cardOutput, complete_now: z.object({ ok: z.boolean(), code: z.string().optional(), message: z.string().optional() }).nullable() }),
  readOnly: true,
  async run(args, call) {
    const ctx = cardContextOf(call);
    const ledger = await call.session.read(call.workspace);
    if (!ledger) return notFound(args.card_id);
    const view = await cardToActOn(ctx, ledger, args.card_id);
    const judged = isClosed(view.state) ? null : await judgeCompletion({ workspace: call.workspace, home: call.home, specs: call.session }, ledger, view);
    const completeNow = judged === null ? null : judged.ok ? { ok: true } : { ok: false, code: judged.problem.code, message: judged.problem.message };
    const lines = [
      ...cardLines(view),
      completeNow === null
        ? 'The card is closed.'
        : completeNow.ok
          ? 'It would close now: call vouch_card_complete.'
          : `It would not close now: ${completeNow.code}: ${completeNow.message}`,
    ];
    return answer({ card: cardJson(view) as z.output<typeof cardOutput>, complete_now: completeNow }, lines.join('\n'));
  },
});
