import { fail } from '../../core/problem.js';
import { sha256 } from '../../core/digest.js';
import { parseClaim } from '../../fleet/claim.js';
import { dispatchJson } from '../../fleet/json.js';
import { currentWriter } from '../../fleet/writer.js';
import { paint } from '../../render/color.js';
import { renderDispatch } from '../../render/fleet.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { findDispatch, moved, readInput, signerOf, withStore } from './common.js';

/** Records the agent's claim: its words, validated for shape, never evidence. */
export async function dispatchReport(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('dispatch report', args, { report: { type: 'string' }, json: { type: 'boolean' } });
  const [id, ...extra] = positionals;
  const where = 'vouch dispatch report';
  if (!id || extra.length > 0) return fail({ code: 'usage', message: 'expected exactly one dispatch id', where, hint: '`vouch fleet` lists dispatch ids' });
  if (values.report === undefined)
    return fail({
      code: 'usage',
      message: '--report FILE is required (- reads stdin)',
      where,
      expected: 'a JSON claim: {"summary": "...", "deliverables": [...]}',
    });
  const input = await readInput(cli, values.report, '--report', where);
  const claim = parseClaim(input.text, input.display);
  if (!claim.ok) return fail(claim.error);

  const workspace = cli.session.workspace();
  const spec = await cli.session.spec(workspace);
  const sign = await signerOf(cli, workspace, spec);
  const dispatch = await withStore(cli, workspace, spec, false, id, async (store) => {
    const found = await findDispatch(store, id);
    const draft = {
      event: 'reported' as const,
      why: 'reported with vouch dispatch report',
      claim: claim.value,
      claim_sha256: sha256(input.text),
      via: 'cli' as const,
      claimant_pid: process.pid,
      transcript_prompt: null,
    };
    return moved(await store.move(found.id, draft, currentWriter('cli'), sign));
  });
  if (values.json) {
    json(cli, { ok: true, ...dispatchJson(dispatch, spec.sha256) });
    return EXIT.ok;
  }
  out(cli, renderDispatch(dispatch, spec.sha256, paint(cli.color)));
  out(cli, `\nnext: \`vouch dispatch grade ${dispatch.id}\` grades this claim with the checks of its tier (its words are not evidence)`);
  return EXIT.ok;
}
