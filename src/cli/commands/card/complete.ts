import { completeCard, forceCloseCard } from '../../../cards/complete.js';
import { cardJson } from '../../../cards/read.js';
import { fail } from '../../../core/problem.js';
import { paint } from '../../../render/color.js';
import { parse } from '../../args.js';
import { EXIT } from '../../exit.js';
import { json, out, type Cli } from '../../io.js';
import { cardContext, cardIdArg } from './shared.js';

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('card complete', args, { force: { type: 'boolean' }, why: { type: 'string' }, json: { type: 'boolean' } });
  const id = cardIdArg('complete', positionals);
  if (values.why !== undefined && !values.force) {
    return fail({
      code: 'usage',
      message: '--why goes with --force: a normal complete needs no reason, only a fresh PASS',
      where: 'vouch card complete',
      hint: 'drop --why, or add --force if you are the owner overriding',
    });
  }
  const ctx = cardContext(cli);
  const view = values.force ? await forceCloseCard(ctx, id, values.why) : await completeCard(ctx, id);
  const p = paint(cli.color);
  if (values.json) json(cli, { ok: true, ...cardJson(view) });
  else if (view.state === 'owner_closed')
    out(
      cli,
      `${view.id}: ${p.red('owner_close')}, closed by the owner WITHOUT a fresh PASS (${view.ownerClose?.body.why ?? ''}). It is recorded and shown as owner_close, never as a pass.`,
    );
  else out(cli, `${view.id}: ${p.green('done')}, closed on the fresh PASS of verdict ${view.completed?.body.verdict_event ?? '?'}`);
  return EXIT.ok;
}
