import { auditCards } from '../../../cards/audit.js';
import { checkCardId } from '../../../cards/load.js';
import { fail } from '../../../core/problem.js';
import { paint } from '../../../render/color.js';
import { renderAuditOutcomes } from '../../../render/card.js';
import { parse } from '../../args.js';
import { EXIT } from '../../exit.js';
import { json, out, type Cli } from '../../io.js';
import { cardContext } from './shared.js';

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('card audit', args, { all: { type: 'boolean' }, json: { type: 'boolean' } });
  if ((positionals.length === 1) === (values.all === true) || positionals.length > 1) {
    return fail({
      code: 'usage',
      message: 'vouch card audit takes one card id or --all',
      expected: 'ID, or --all',
      found: [...positionals, ...(values.all ? ['--all'] : [])].join(' ') || '(nothing)',
    });
  }
  const card = positionals[0];
  if (card !== undefined) checkCardId(card);
  const target = card === undefined ? { all: true as const } : { card };
  const outcomes = await auditCards(cardContext(cli), target);
  // An absent grade is never a passing grade: auditing nothing is not "all passed".
  const nothing = outcomes.length === 0;
  const ok = !nothing && outcomes.every((o) => o.kind === 'ran' && o.event.verdict === 'PASS');
  if (values.json) {
    json(cli, {
      ok,
      ...(nothing && { reason: 'nothing_audited', message: NOTHING_AUDITED }),
      cards: outcomes.map((o) =>
        o.kind === 'ran'
          ? {
              card: o.card,
              ran: o.run !== null,
              verdict: o.event.verdict,
              reason: o.event.reason,
              ...(o.event.not_run && { not_run: o.event.not_run }),
              event: o.event.id,
              receipts: o.event.receipts,
              follow_up: o.event.follow_up,
              follow_up_skipped: o.event.follow_up_skipped,
            }
          : { card: o.card, ran: false, recorded: false, error: o.problem },
      ),
    });
  } else {
    out(cli, nothing ? NOTHING_AUDITED : renderAuditOutcomes(outcomes, paint(cli.color)));
  }
  return ok ? EXIT.ok : EXIT.notOk;
}

const NOTHING_AUDITED = 'nothing audited: no card is done, so no proof ran again (an absent grade is not a pass); cards close with `vouch card complete ID`';
