import * as z from 'zod';
import { openCard } from '../../cards/open.js';
import { contractLine } from '../../cards/contract-line.js';
import { cardJson } from '../../cards/read.js';
import { cardContextOf, cardLines, cardOutput } from '../card-call.js';
import { answer, defineTool } from '../tool.js';

const checkId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/)
  .describe('a check id of the allowed vouch.yaml (vouch_checks lists them)');

/** Opens a card from a request: the contract, with a proof frozen from the allowed spec. Coordinator only. */
export const cardOpenTool = defineTool({
  name: 'vouch_card_open',
  title: 'Open a task card',
  description:
    'Opens a task card from a request: goal, artifact, done_when, and a proof that names only checks of the allowed vouch.yaml (proof: check ids), or a script only the verifier writes (proof_script: a file name). The proof is frozen now; nothing but a recorded decision changes it. ' +
    "Budgets: budget_attempts (default 5) and budget_tokens (the worker is stopped past it, and at five failed tool calls in a row). Only a coordinator opens cards (VOUCH_ROLE=coordinator in this server's environment). " +
    'Returns the contract in one line: artifact · proof · budget · card id · who owns it.',
  input: z
    .object({
      goal: z.string().min(1).max(2000),
      artifact: z.string().min(1).max(1000).describe('the workspace-relative file or glob the work changes'),
      done_when: z.string().min(1).max(2000).describe('when it is done, in plain language'),
      proof: z.array(checkId).max(32).optional(),
      proof_script: z
        .string()
        .regex(/^[A-Za-z0-9._-]{1,64}$/)
        .optional(),
      budget_attempts: z.number().int().min(1).max(1000).optional(),
      budget_tokens: z.number().int().min(1).optional(),
    })
    .strict(),
  output: z.object({ card: cardOutput, contract_line: z.string() }),
  readOnly: false,
  async run(args, call) {
    const ctx = cardContextOf(call);
    const view = await openCard(ctx, {
      goal: args.goal,
      artifact: args.artifact,
      doneWhen: args.done_when,
      proof: args.proof ?? [],
      proofScript: args.proof_script,
      budgetAttempts: args.budget_attempts,
      budgetTokens: args.budget_tokens,
    });
    const line = contractLine(view);
    return answer({ card: cardJson(view) as z.output<typeof cardOutput>, contract_line: line }, [line, ...cardLines(view)].join('\n'));
  },
});
