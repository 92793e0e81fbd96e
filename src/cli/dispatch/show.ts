import { fail } from '../../core/problem.js';
import { dispatchJson } from '../../fleet/json.js';
import { paint } from '../../render/color.js';
import { renderDispatch } from '../../render/fleet.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { findDispatch, withStore } from './common.js';

/** One dispatch in full, with every transition and its writer. */
export async function dispatchShow(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('dispatch show', args, { json: { type: 'boolean' } });
  const [id, ...extra] = positionals;
  if (!id || extra.length > 0) return fail({ code: 'usage', message: 'expected exactly one dispatch id', where: 'vouch dispatch show', hint: '`vouch fleet` lists dispatch ids' });
  const workspace = cli.session.workspace();
  const dispatch = await withStore(cli, workspace, await cli.session.specIfValid(workspace), false, id, (store) => findDispatch(store, id));
  if (values.json) json(cli, dispatchJson(dispatch));
  else out(cli, renderDispatch(dispatch, paint(cli.color)));
  return EXIT.ok;
}
