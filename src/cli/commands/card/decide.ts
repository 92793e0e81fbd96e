import { decideCard, DECISIONS, type DecisionName } from '../../../cards/decide.js';
import { cardJson } from '../../../cards/read.js';
import { fail } from '../../../core/problem.js';
import { closest } from '../../../core/suggest.js';
import { integerFlag, parse } from '../../args.js';
import { EXIT } from '../../exit.js';
import { json, out, type Cli } from '../../io.js';
import { cardContext, listFlag } from './shared.js';

/** Flags each decision takes, besides --why and --json. */
const FLAGS: Readonly<Record<DecisionName, readonly string[]>> = {
  rescope: ['goal', 'artifact', 'done-when', 'lands-at', 'budget-attempts', 'proof', 'proof-script'],
  'revise-script': ['sha256'],
  split: ['into'],
  abandon: [],
  retry: [],
  ask: ['question'],
};

export async function run(cli: Cli, args: readonly string[]): Promise<number> {
  const { values, positionals } = parse('card decide', args, {
    why: { type: 'string' },
    goal: { type: 'string' },
    artifact: { type: 'string' },
    'done-when': { type: 'string' },
    'lands-at': { type: 'string' },
    'budget-attempts': { type: 'string' },
    // Accepted only to be refused with the reason: a decision never moves the proof.
    proof: { type: 'string', multiple: true },
    'proof-script': { type: 'string' },
    sha256: { type: 'string' },
    question: { type: 'string' },
    into: { type: 'string', multiple: true },
    json: { type: 'boolean' },
  });
  const [id, name, ...extra] = positionals;
  if (id === undefined || name === undefined || extra.length > 0) {
    return fail({
      code: 'usage',
      message: 'vouch card decide takes a card id and a decision',
      expected: `ID ${DECISIONS.join('|')} --why TEXT`,
      found: positionals.join(' '),
      hint: 'run `vouch card --help`',
    });
  }
  if (!(DECISIONS as readonly string[]).includes(name)) {
    const guess = closest(name, DECISIONS);
    return fail({
      code: 'usage',
      message: `unknown decision "${name}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
      expected: `one of: ${DECISIONS.join(', ')}`,
      found: name,
    });
  }
  const decision = name as DecisionName;
  const given = Object.keys(values).filter((key) => !['why', 'json', 'dir', 'no-color', 'help'].includes(key));
  const stray = given.find((key) => !FLAGS[decision].includes(key) && !(key === 'proof' || key === 'proof-script'));
  if (stray) {
    return fail({
      code: 'usage',
      message: `--${stray} does not apply to ${decision}`,
      expected:
        FLAGS[decision].length > 0
          ? `with ${decision}: ${FLAGS[decision]
              .filter((f) => !f.startsWith('proof'))
              .map((f) => `--${f}`)
              .join(', ')}`
          : `${decision} takes only --why`,
      found: `--${stray}`,
    });
  }
  const budget = integerFlag('card decide', 'budget-attempts', values['budget-attempts'], 1);
  const view = await decideCard(cardContext(cli), id, {
    decision,
    why: values.why,
    changes: {
      ...(values.goal !== undefined && { goal: values.goal }),
      ...(values.artifact !== undefined && { artifact: values.artifact }),
      ...(values['done-when'] !== undefined && { done_when: values['done-when'] }),
      ...(values['lands-at'] !== undefined && { lands_at: values['lands-at'] }),
      ...(budget !== undefined && { budget_attempts: budget }),
    },
    proofGiven: values.proof !== undefined || values['proof-script'] !== undefined,
    sha256: values.sha256,
    into: listFlag(values.into),
    question: values.question,
  });
  if (values.json) json(cli, { ok: true, ...cardJson(view) });
  else
    out(
      cli,
      `${view.id}: ${decision} recorded (${view.state === 'split' || view.state === 'abandoned' ? `the card is ${view.state}, not done` : `state ${view.state}`})`,
    );
  return EXIT.ok;
}
