import { judgeCompletion } from '../../../cards/completion.js';
import { isClosed } from '../../../cards/fold.js';
import { checkCardId, notFound } from '../../../cards/load.js';
import { cardJson, cardView, eventJson, summarize } from '../../../cards/read.js';
import { paint } from '../../../render/color.js';
import { renderCard } from '../../../render/card.js';
import { vouchHome } from '../../../workspace/home.js';
import { parse } from '../../args.js';
import { EXIT } from '../../exit.js';
import { err, json, out, type Cli } from '../../io.js';
import { cardIdArg } from './shared.js';

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('card show', args, { json: { type: 'boolean' } });
  const id = cardIdArg('show', positionals);
  checkCardId(id);
  const workspace = cli.session.workspace();
  const home = vouchHome(cli.io.env);
  const ledger = await cli.session.read(workspace);
  if (!ledger) return notFound(id);
  const loaded = await cardView(ledger, home, id);
  if (!loaded) return notFound(id);
  if (loaded.kind === 'damaged') {
    if (values.json) json(cli, { ok: false, ...summarize(loaded), events: loaded.entries.map(eventJson) });
    else err(cli, `${paint(cli.color).red('vouch:')} card ${id} is DAMAGED: ${loaded.why}. vouch does not act on it; \`vouch audit\` shows what was altered.`);
    return EXIT.notOk;
  }
  const view = loaded.view;
  const judged = isClosed(view.state) ? null : await judgeCompletion({ workspace, home, specs: cli.session }, ledger, view);
  const problem = judged && !judged.ok ? judged.problem : null;
  if (values.json)
    json(cli, {
      ok: true,
      ...cardJson(view),
      complete_now: judged === null ? null : problem ? { ok: false, code: problem.code, message: problem.message } : { ok: true },
    });
  else out(cli, renderCard(view, problem, paint(cli.color)));
  return EXIT.ok;
}
