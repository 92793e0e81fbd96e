import { fail } from '../core/problem.js';
import { requireWhy } from './complete.js';
import { nowOf, cardSigner, type CardContext } from './context.js';
import { requireOpen } from './closed.js';
import { everSigned, type CardView } from './fold.js';
import { cardToActOn } from './load.js';
import type { CardActor, ClaimedEvent } from './model.js';
import { requireRole } from './rules.js';
import { appendCardEvent } from './store.js';

export interface ClaimOptions {
  /** The holder's name (--as NAME); else VOUCH_WORKER; else the role and agent client. */
  readonly as?: string | undefined;
  /** The owner or a coordinator moves the card from its holder to this one. */
  readonly reassign?: boolean;
  readonly why?: string | undefined;
}

const HOLDER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,79}$/;

/**
 * A worker starts on the card. A card has one writer: while one holder
 * holds it, a claim by any other is refused (card_claimed) unless the owner
 * or a coordinator reassigns it, saying why. The holder's own claim again
 * is a new start. A PASS recorded before the newest claim no longer closes
 * the card: the work since is unproven.
 */
export async function claimCard(ctx: CardContext, id: string, options: ClaimOptions = {}): Promise<CardView> {
  requireRole(ctx.by, 'claim');
  const holder = holderName(ctx.by, options.as ?? ctx.env.VOUCH_WORKER);
  const ledger = await ctx.ledgers.write(ctx.workspace);
  const view = await cardToActOn(ctx, ledger, id);
  requireOpen(view, 'claim');
  const held = view.holder !== null && view.holder.name !== holder ? view.holder : null;
  let why: string | null = null;
  if (options.reassign) {
    requireRole(ctx.by, 'reassign');
    why = requireWhy(options.why, 'claim --reassign');
  } else if (held) {
    fail({
      code: 'card_claimed',
      message: `card ${id} is held by "${held.name}" (claimed ${held.at}): a card has one writer, and "${holder}" is not it`,
      hint: `work on another card, or ask for it: the owner (or a coordinator) reassigns it with \`vouch card claim ${id} --as ${holder} --reassign --why TEXT\``,
    });
  }
  const draft = { event: 'claimed' as const, holder, reassigned_from: options.reassign ? (view.holder?.name ?? null) : null, why };
  await appendCardEvent<ClaimedEvent>(ledger, id, draft, { by: ctx.by, now: nowOf(ctx), sign: await cardSigner(ctx, view.proof.policy, everSigned(view)) });
  return await cardToActOn(ctx, ledger, id);
}

/** The holder a claim names: given, or the role with the agent client it runs in ("worker@claude-code", "owner@terminal"). */
export function holderName(by: CardActor, given: string | undefined): string {
  const name = given?.trim();
  if (name === undefined || name === '') return `${by.role}@${by.agent ?? 'terminal'}`;
  if (!HOLDER_PATTERN.test(name)) {
    return fail({
      code: 'usage',
      message: `the holder name "${name}" is not a name`,
      where: '--as',
      expected: '1-80 characters from A-Z a-z 0-9 . _ : @ / -, starting with a letter or digit',
      found: name,
    });
  }
  return name;
}
