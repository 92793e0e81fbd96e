import { fail } from '../core/problem.js';
import type { Keyring } from '../crypto/keyring.js';
import type { Ledger } from '../ledger/ledger.js';
import type { CardContext } from './context.js';
import { foldCard, type CardEntry, type CardView } from './fold.js';
import type { CardEvent } from './model.js';
import { CARD_ID_PATTERN, readCardEntries } from './store.js';

export type LoadedCard =
  | { readonly kind: 'ok'; readonly view: CardView }
  | { readonly kind: 'damaged'; readonly id: string; readonly entries: readonly CardEntry[]; readonly why: string };

/**
 * Reads and folds one card. Signed events must verify under the keys this
 * machine trusts (VOUCH_HOME/keys); unsigned ones are damaged when the card
 * was opened under require_signature.
 */
export async function loadCard(ledger: Ledger, home: string, id: string): Promise<LoadedCard | undefined> {
  let ring: Keyring | undefined;
  const entries = await readCardEntries(ledger, id, {
    keyring: async () => {
      const { homeKeyring } = await import('../crypto/keyring.js');
      return (ring ??= homeKeyring(home));
    },
    requireSignature: (opened: CardEvent | undefined) => opened?.event === 'opened' && opened.proof.policy.require_signature,
  });
  if (entries.length === 0) return undefined;
  const folded = foldCard(id, entries);
  return folded.kind === 'ok' ? { kind: 'ok', view: folded.view } : { kind: 'damaged', id, entries, why: folded.why };
}

/** One card to act on: found, and intact; otherwise the problem that says why not. */
export async function cardToActOn(ctx: CardContext, ledger: Ledger, id: string): Promise<CardView> {
  checkCardId(id);
  const loaded = await loadCard(ledger, ctx.home, id);
  if (!loaded) return notFound(id);
  if (loaded.kind === 'damaged') {
    return fail({
      code: 'card_damaged',
      message: `card ${id} is damaged (${loaded.why}); vouch does not act on it`,
      hint: '`vouch audit` shows what was altered; a person decides what to do (open a new card)',
    });
  }
  return loaded.view;
}

export function checkCardId(id: string): void {
  if (!CARD_ID_PATTERN.test(id)) {
    fail({
      code: 'usage',
      message: `"${id}" is not a card id`,
      expected: 'c- followed by 8 characters, as `vouch card list` shows (e.g. c-7k2m9xqa)',
      found: id,
    });
  }
}

export function notFound(id: string): never {
  return fail({ code: 'card_not_found', message: `no card ${id} in this workspace's ledger`, hint: 'run `vouch card list` to see the cards' });
}

/** A card another card links to (split --into): it must exist. */
export async function loadCardForLink(ctx: CardContext, ledger: Ledger, id: string): Promise<void> {
  if ((await ledger.events('card', id)).length === 0) notFound(id);
}
