import { fail } from '../../core/problem.js';
import { dispatchJson } from '../../fleet/json.js';
import { currentWriter } from '../../fleet/writer.js';
import { paint } from '../../render/color.js';
import { renderDispatch } from '../../render/fleet.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { json, out, type Cli } from '../io.js';
import { findDispatch, moved, signerOf, withStore } from './common.js';

/** Terminates a dispatch from whatever state it is in, recording why. Its verdict stays what it was. */
export async function dispatchClose(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('dispatch close', args, { reason: { type: 'string' }, json: { type: 'boolean' } });
  const [id, ...extra] = positionals;
  if (!id || extra.length > 0)
    return fail({
      code: 'usage',
      message: 'expected exactly one dispatch id',
      where: 'vouch dispatch close',
      hint: '`vouch fleet --open` lists open dispatches',
    });
  if (values.reason !== undefined && values.reason.trim() === '')
    return fail({ code: 'usage', message: '--reason is empty', where: 'vouch dispatch close', expected: 'why the dispatch is closed, in words' });
  const workspace = cli.session.workspace();
  const spec = await cli.session.spec(workspace);
  const sign = await signerOf(cli, workspace, spec);
  const dispatch = await withStore(cli, workspace, spec, false, id, async (store) => {
    const found = await findDispatch(store, id);
    const why = values.reason ?? 'closed with vouch dispatch close (no reason given)';
    return moved(await store.move(found.id, { event: 'terminated', why }, currentWriter('cli'), sign));
  });
  if (values.json) {
    json(cli, { ok: true, ...dispatchJson(dispatch, spec.sha256) });
    return EXIT.ok;
  }
  out(cli, renderDispatch(dispatch, spec.sha256, paint(cli.color)));
  return EXIT.ok;
}
