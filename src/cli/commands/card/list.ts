import { listCards } from '../../../cards/read.js';
import { paint } from '../../../render/color.js';
import { renderBoard } from '../../../render/card.js';
import { vouchHome } from '../../../workspace/home.js';
import { parse } from '../../args.js';
import { EXIT } from '../../exit.js';
import { json, out, type Cli } from '../../io.js';

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse('card list', args, { open: { type: 'boolean' }, json: { type: 'boolean' } }, false);
  const ledger = await cli.session.read(cli.session.workspace());
  const cards = ledger ? await listCards(ledger, vouchHome(cli.io.env), { open: values.open === true }) : [];
  if (values.json) json(cli, { cards });
  else out(cli, renderBoard(cards, paint(cli.color)));
  return EXIT.ok;
}
