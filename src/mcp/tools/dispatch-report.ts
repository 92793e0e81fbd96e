import * as z from 'zod';
import { digestJson } from '../../core/digest.js';
import { fail } from '../../core/problem.js';
import { claimSchema, normalizeClaim } from '../../fleet/claim.js';
import { notFound, refusalProblem } from '../../fleet/problems.js';
import { Dispatches } from '../../fleet/store.js';
import { currentWriter } from '../../fleet/writer.js';
import { answer, defineTool } from '../tool.js';

const dispatchId = z
  .string()
  .regex(/^[0-9a-hjkmnp-tv-z]{6,26}$/)
  .describe('the dispatch this agent was sent on (26 lowercase characters, or a unique prefix of 6+), as `vouch dispatch new` printed it');

/**
 * An agent reports its claim on its dispatch. The claim is data: a summary
 * and deliverables with how the agent knows each (executed, observed,
 * believed), recorded as the agent's words. Nothing in it is run, and this
 * tool grades nothing: a checker outside this server does.
 */
export const dispatchReportTool = defineTool({
  name: 'vouch_dispatch_report',
  title: 'Report on a dispatch',
  description:
    'Record your claim on the dispatch you were sent on: {summary, deliverables: [{what, evidence: executed|observed|believed, how?}]}. ' +
    'It is recorded as your own words, never as evidence, and nothing in it is executed. Grading is not done here: a checker outside this server ' +
    '(`vouch dispatch grade`, or the SubagentStop gate) runs the checks of vouch.yaml for your tier. A dispatch can be reported when it is dispatched, ' +
    'or again after it was contradicted.',
  input: z.object({ dispatch_id: dispatchId, claim: claimSchema }).strict(),
  output: z.object({
    id: z.string(),
    state: z.string().describe('reported: the claim is on record and awaits a grade'),
    verdict: z.string().describe('ungraded until a checker grades the claim'),
    tier: z.string().nullable(),
    transition: z.string().describe('the id of the recorded transition'),
  }),
  readOnly: false,
  async run(args, call) {
    const spec = await call.spec();
    const signer = await call.session.signer(call.workspace, spec);
    if (!signer.ok) return fail(signer.error);
    const claim = normalizeClaim(args.claim);
    const ledger = await call.session.write(call.workspace);
    const store = new Dispatches(ledger, { home: call.home, requireSignature: spec.requireSignature });
    const found = await store.find(args.dispatch_id);
    if (found.kind === 'none') return fail(notFound(args.dispatch_id));
    if (found.kind === 'ambiguous')
      return fail({
        code: 'dispatch_not_found',
        message: `"${args.dispatch_id}" matches several dispatches: ${found.ids.join(', ')}`,
        hint: 'give the whole id',
      });
    const moved = await store.move(
      found.dispatch.id,
      {
        event: 'reported',
        why: 'reported with the MCP tool vouch_dispatch_report',
        claim,
        claim_sha256: digestJson(claim),
        via: 'mcp',
        claimant_pid: process.pid,
        transcript_prompt: null,
      },
      currentWriter('mcp'),
      signer.value,
    );
    if (!moved.ok) return fail(refusalProblem(moved.error));
    const d = moved.value;
    const transition = d.transitions[d.transitions.length - 1]!;
    const text = [
      `dispatch ${d.id}: reported (tier ${d.order?.tier ?? '?'}). Your claim is on record: ${claim.deliverables.length} deliverable${claim.deliverables.length === 1 ? '' : 's'}.`,
      `It is ungraded until a checker outside this server grades it with the checks of vouch.yaml at tier ${d.order?.tier ?? '?'} (\`vouch dispatch grade ${d.id}\`, or your SubagentStop).`,
    ].join('\n');
    return answer({ id: d.id, state: d.state, verdict: d.verdict, tier: d.order?.tier ?? null, transition: transition.id }, text);
  },
});
