import { openCard } from '../../../cards/open.js';
import { contractLine } from '../../../cards/contract-line.js';
import { cardJson } from '../../../cards/read.js';
import { fail } from '../../../core/problem.js';
import { paint } from '../../../render/color.js';
import { integerFlag, parse } from '../../args.js';
import { EXIT } from '../../exit.js';
import { json, out, type Cli } from '../../io.js';
import { cardContext, listFlag } from './shared.js';

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse(
    'card open',
    args,
    {
      goal: { type: 'string' },
      artifact: { type: 'string' },
      'done-when': { type: 'string' },
      proof: { type: 'string', multiple: true },
      'proof-script': { type: 'string' },
      scope: { type: 'string', multiple: true },
      timeout: { type: 'string' },
      'lands-at': { type: 'string' },
      'budget-attempts': { type: 'string' },
      'budget-tokens': { type: 'string' },
      verify: { type: 'string' },
      json: { type: 'boolean' },
    },
    false,
  );
  const verify = values.verify;
  if (verify !== undefined && verify !== 'proof' && verify !== 'independent') {
    return fail({
      code: 'usage',
      message: '--verify expects proof or independent',
      where: 'vouch card open',
      expected: 'proof (any role may verify and close) or independent (a verifier or coordinator)',
      found: verify,
    });
  }
  const view = await openCard(cardContext(cli), {
    goal: values.goal,
    artifact: values.artifact,
    doneWhen: values['done-when'],
    proof: listFlag(values.proof),
    proofScript: values['proof-script'],
    scope: listFlag(values.scope),
    timeout: integerFlag('card open', 'timeout', values.timeout, 1),
    landsAt: values['lands-at'],
    budgetAttempts: integerFlag('card open', 'budget-attempts', values['budget-attempts'], 1),
    budgetTokens: integerFlag('card open', 'budget-tokens', values['budget-tokens'], 1),
    verify,
  });
  if (values.json) {
    json(cli, { ok: true, ...cardJson(view), contract_line: contractLine(view) });
    return EXIT.ok;
  }
  const p = paint(cli.color);
  const proof = view.proof.kind === 'checks' ? `checks ${view.proof.checks.map((c) => c.id).join(', ')}` : `script ${view.proof.path} (the verifier writes it)`;
  out(
    cli,
    `${p.bold(view.id)} opened: proof frozen (${proof}), verify ${view.verify}${view.verify !== view.opened.body.verify_requested ? ' (a script proof is always independent)' : ''}, budget ${view.contract.budget_attempts} attempts`,
  );
  return EXIT.ok;
}
