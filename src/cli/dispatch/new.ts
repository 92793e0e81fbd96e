import { fail } from '../../core/problem.js';
import { currentWriter } from '../../fleet/writer.js';
import { dispatchJson } from '../../fleet/json.js';
import type { Dispatch } from '../../fleet/model.js';
import { blockingAtTier, chooseTier, manifestAt, orderDraft } from '../../fleet/order.js';
import { paint } from '../../render/color.js';
import { renderDispatch } from '../../render/fleet.js';
import { TIERS, type Tier } from '../../spec/fields.js';
import { trustState } from '../../trust/trust.js';
import { vouchHome } from '../../workspace/home.js';
import { parse } from '../args.js';
import { EXIT } from '../exit.js';
import { err, json, out, type Cli } from '../io.js';
import { findDispatch, readInput, signerOf, withStore } from './common.js';

/** The largest prompt recorded: a prompt, not a data set. */
const PROMPT_MAX_BYTES = 256 * 1024;
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}$/;

export async function dispatchNew(cli: Cli, args: readonly string[]): Promise<number> {
  const { values } = parse(
    'dispatch new',
    args,
    {
      prompt: { type: 'string' },
      'prompt-file': { type: 'string' },
      tier: { type: 'string' },
      parent: { type: 'string' },
      card: { type: 'string' },
      session: { type: 'string' },
      json: { type: 'boolean' },
    },
    false,
  );
  const where = 'vouch dispatch new';
  if ((values.prompt === undefined) === (values['prompt-file'] === undefined)) {
    return fail({
      code: 'usage',
      message: 'give the prompt exactly once: --prompt TEXT or --prompt-file FILE',
      where,
      hint: '--prompt-file - reads it from stdin',
    });
  }
  const source = values.prompt !== undefined ? 'flag' : values['prompt-file'] === '-' ? 'stdin' : 'file';
  const text = values.prompt ?? (await readInput(cli, values['prompt-file']!, '--prompt-file', where)).text;
  if (text.trim() === '') return fail({ code: 'usage', message: 'the prompt is empty', where, expected: 'the instructions the agent is sent' });
  if (Buffer.byteLength(text) > PROMPT_MAX_BYTES) {
    return fail({ code: 'usage', message: `the prompt is ${Buffer.byteLength(text)} bytes; at most ${PROMPT_MAX_BYTES} are recorded`, where });
  }
  const declared = tierFlag(values.tier);
  for (const [flag, value] of [
    ['card', values.card],
    ['session', values.session],
  ] as const) {
    if (value !== undefined && !LABEL.test(value)) {
      return fail({ code: 'usage', message: `--${flag} is not a valid id`, where, expected: '1 to 128 characters from A-Z a-z 0-9 . _ : @ / -', found: value });
    }
  }
  if (values.parent !== undefined && !/^[0-9a-z]{6,26}$/.test(values.parent)) {
    return fail({
      code: 'usage',
      message: '--parent is not a dispatch id',
      where,
      expected: 'a dispatch id or a unique prefix of 6+ characters',
      found: values.parent,
    });
  }

  const workspace = cli.session.workspace();
  const spec = await cli.session.spec(workspace);
  const sign = await signerOf(cli, workspace, spec);
  const created = await withStore(cli, workspace, spec, true, null, async (store, ledger) => {
    // A dispatch names a card that is on record, or none: a typo must not attach work to nothing.
    if (values.card !== undefined && (await ledger.events('card', values.card)).length === 0) {
      return fail({ code: 'usage', message: `no card "${values.card}" in this ledger`, where, found: values.card, hint: '`vouch card list` shows the cards' });
    }
    const ancestors: Dispatch[] = [];
    // The chain up to its top, nearest first (a damaged record could loop: stop at a repeat).
    for (let next = values.parent ?? null; next !== null && ancestors.length < 64;) {
      const ancestor = await findDispatch(store, next);
      if (ancestor.damage && declared === null) {
        return fail({
          code: 'dispatch_damaged',
          message: `the chain through ${ancestor.id} cannot be believed (${ancestor.damage}), so no tier can be inferred from it`,
          hint: 'declare the tier with --tier',
        });
      }
      ancestors.push(ancestor);
      next = ancestor.order?.parent ?? null;
      if (ancestors.some((a) => a.id === next)) break;
    }
    const session = values.session ?? ancestors[ancestors.length - 1]?.order?.session ?? null;
    const tier = chooseTier(declared, { ancestors, session });
    const draft = orderDraft({
      prompt: { text, source },
      tier,
      parent: ancestors[0]?.id ?? null,
      card: values.card ?? null,
      session,
      agent: null,
      spec,
      manifest: await manifestAt(workspace, spec, tier.tier),
      why: 'ordered with vouch dispatch new',
    });
    return store.create(draft, currentWriter('cli'), sign);
  });

  const order = created.order!;
  const notes: string[] = [];
  if (blockingAtTier(order.manifest) === 0)
    notes.push(`no blocking check applies at tier ${order.tier}: nothing will grade this dispatch, and it will read ungraded`);
  const trust = trustState(vouchHome(cli.io.env), workspace.root, spec.sha256);
  if (trust.ok && trust.value.kind !== 'allowed')
    notes.push('vouch.yaml is not allowed in this workspace: grading will be refused until a person runs `vouch allow`');
  for (const note of notes) err(cli, `vouch: ${note}`);
  if (values.json) {
    json(cli, { ok: true, ...dispatchJson(created, spec.sha256), notes });
    return EXIT.ok;
  }
  out(cli, renderDispatch(created, spec.sha256, paint(cli.color)));
  return EXIT.ok;
}

function tierFlag(value: string | undefined): Tier | null {
  if (value === undefined) return null;
  if ((TIERS as readonly string[]).includes(value)) return value as Tier;
  return fail({ code: 'usage', message: '--tier is not a tier', where: 'vouch dispatch new', expected: `one of: ${TIERS.join(', ')}`, found: value });
}
