import { fail } from '../../core/problem.js';
import { dispatchJson } from '../../fleet/json.js';
import { paint } from '../../render/color.js';
import { renderDispatch } from '../../render/fleet.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { findDispatch, withStore } from './common.js';

/** One dispatch in full, with every transition and its writer, and DRIFT when its pin is not the vouch.yaml in force. */
export async function dispatchShow(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('dispatch show', args, { json: { type: 'boolean' } });
  const [id, ...extra] = positionals;
  if (!id || extra.length > 0)
    return fail({ code: 'usage', message: 'expected exactly one dispatch id', where: 'vouch dispatch show', hint: '`vouch fleet` lists dispatch ids' });
  const workspace = cli.session.workspace();
  const spec = await cli.session.specIfValid(workspace);
  const dispatch = await withStore(cli, workspace, spec, false, id, (store) => findDispatch(store, id));
  // Drift is judged against the vouch.yaml in force now: none valid is a drift from any pin.
  if (values.json) json(cli, dispatchJson(dispatch, spec?.sha256 ?? null));
  else out(cli, renderDispatch(dispatch, spec?.sha256 ?? null, paint(cli.color)));
  return EXIT.ok;
}
