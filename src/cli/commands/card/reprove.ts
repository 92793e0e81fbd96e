import { cardJson } from '../../../cards/read.js';
import { reproveCard } from '../../../cards/reprove.js';
import { integerFlag, parse } from '../../args.js';
import { EXIT } from '../../exit.js';
import { json, out, type Cli } from '../../io.js';
import { cardContext, cardIdArg, listFlag } from './shared.js';

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('card reprove', args, {
    proof: { type: 'string', multiple: true },
    'proof-script': { type: 'string' },
    scope: { type: 'string', multiple: true },
    timeout: { type: 'string' },
    why: { type: 'string' },
    json: { type: 'boolean' },
  });
  const id = cardIdArg('reprove', positionals);
  const view = await reproveCard(cardContext(cli), id, {
    proof: listFlag(values.proof),
    proofScript: values['proof-script'],
    scope: listFlag(values.scope),
    timeout: integerFlag('card reprove', 'timeout', values.timeout, 1),
    why: values.why,
  });
  if (values.json) json(cli, { ok: true, ...cardJson(view) });
  else out(cli, `${view.id}: the owner changed the proof (digest ${view.proof.digest.slice(0, 12)}…); verdicts of the old proof no longer count`);
  return EXIT.ok;
}
