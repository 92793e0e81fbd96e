import { cardJson } from '../../../cards/read.js';
import { verifyCard } from '../../../cards/verify.js';
import { paint } from '../../../render/color.js';
import { Progress } from '../../../render/progress.js';
import { renderVerifyLine } from '../../../render/receipt-line.js';
import { parse } from '../../args.js';
import { EXIT } from '../../exit.js';
import { json, out, type Cli } from '../../io.js';
import { cardContext, cardIdArg } from './shared.js';

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('card verify', args, { json: { type: 'boolean' } });
  const id = cardIdArg('verify', positionals);
  const p = paint(cli.color);
  const progress = cli.io.stderrIsTTY ? new Progress(cli.io.stderr, paint(cli.color && cli.io.stderrIsTTY)) : undefined;
  const base = cardContext(cli);
  const result = await verifyCard(
    {
      ...base,
      onEvent: (event) => {
        if (event.kind === 'check_started') progress?.start(event.check.id);
        else {
          progress?.stop();
          if (!values.json) out(cli, renderVerifyLine(event.receipt, true, p));
        }
      },
    },
    id,
  ).finally(() => progress?.stop());
  const { view, event } = result;
  const budget = view.contract.budget_attempts;
  if (values.json) {
    json(cli, {
      ok: event.verdict === 'PASS',
      verdict: event.verdict,
      reason: event.reason,
      attempt: event.attempt,
      receipts: event.receipts,
      script: event.script,
      event: event.id,
      card: cardJson(view),
    });
  } else {
    const spent =
      view.overBudget && event.verdict !== 'PASS'
        ? p.red(` Budget spent (${event.attempt}/${budget}): the card stops here and asks a coordinator or the owner to decide.`)
        : '';
    out(
      cli,
      `${view.id}: ${event.verdict === 'PASS' ? p.green('PASS') : event.verdict === 'FAIL' ? p.red('FAIL') : p.yellow('UNKNOWN')} (${event.reason}), attempt ${event.attempt}/${budget}, by ${view.verdicts[view.verdicts.length - 1]?.body.by.role ?? base.by.role}.${event.verdict === 'PASS' ? ` \`vouch card complete ${view.id}\` closes it while it stays fresh.` : ''}${spent}`,
    );
  }
  return event.verdict === 'PASS' ? EXIT.ok : EXIT.notOk;
}
