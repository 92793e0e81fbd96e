import { claimCard } from '../../../cards/claim.js';
import { cardJson } from '../../../cards/read.js';
import { actorWords } from '../../../render/card.js';
import { parse } from '../../args.js';
import { EXIT } from '../../exit.js';
import { json, out, type Cli } from '../../io.js';
import { cardContext, cardIdArg } from './shared.js';

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('card claim', args, {
    as: { type: 'string' },
    reassign: { type: 'boolean' },
    why: { type: 'string' },
    json: { type: 'boolean' },
  });
  const ctx = cardContext(cli);
  const view = await claimCard(ctx, cardIdArg('claim', positionals), { as: values.as, reassign: values.reassign === true, why: values.why });
  if (values.json) json(cli, { ok: true, ...cardJson(view) });
  else
    out(
      cli,
      `${view.id} claimed by ${view.holder?.name ?? actorWords(ctx.by)} (${actorWords(ctx.by)}): it holds the card alone; a PASS now needs a verify after this claim`,
    );
  return EXIT.ok;
}
