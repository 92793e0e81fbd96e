import { nodeCrypto } from '../core/builtins.js';
import { canonicalize } from '../core/jcs.js';
import { newId } from '../core/ids.js';
import type { Keyring } from '../crypto/keyring.js';
import type { Ledger, Signer } from '../ledger/ledger.js';
import type { CardEntry } from './fold.js';
import type { CardActor, CardEvent, CardEventDraft } from './model.js';

/** A card id: "c-" and 8 Crockford base32 characters, short enough to type, random enough never to collide in one ledger. */
export const CARD_ID_PATTERN = /^c-[0-9a-hjkmnp-tv-z]{8}$/;
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export function newCardId(): string {
  let id = 'c-';
  for (const byte of nodeCrypto().randomBytes(8)) id += ALPHABET[byte % 32]!;
  return id;
}

export interface AppendCard {
  readonly by: CardActor;
  readonly now: Date;
  readonly sign?: Signer;
}

/** Appends one event to a card's stream in the ledger's chain. Nothing is ever updated in place. */
export async function appendCardEvent<E extends CardEvent>(ledger: Ledger, card: string, draft: CardEventDraft<E>, options: AppendCard): Promise<E> {
  const body = { v: 1, kind: 'card', id: newId(options.now.getTime()), at: options.now.toISOString(), subject: card, by: options.by, ...draft } as unknown as E;
  await ledger.appendEvent(body, options.sign ? { sign: options.sign } : {});
  return body;
}

export interface ReadOptions {
  /** Keys whose signatures count; loaded only when an event is signed. */
  readonly keyring: () => Promise<Keyring>;
  /** Whether an unsigned event is damaged (the card's policy, or the spec's, requires signatures). */
  readonly requireSignature: (opened: CardEvent | undefined) => boolean;
}

/**
 * Reads a card's events, judging each: its bytes must still hash to its
 * hash, and a signature it carries must verify under a trusted key. An
 * unsigned event is damaged where signatures are required, and after any
 * signed event of the same card: once signed, always signed, since an
 * unsigned event after signed ones is what someone with write access but
 * without the key would append. Damaged events are returned as such, never
 * as what they claim.
 */
export async function readCardEntries(ledger: Ledger, card: string, options: ReadOptions): Promise<CardEntry[]> {
  const stored = await ledger.events<CardEvent>('card', card);
  const first = stored[0]?.intact ? stored[0].body : undefined;
  const required = options.requireSignature(first);
  const entries: CardEntry[] = [];
  let signedBefore = false;
  for (const event of stored) {
    if (!event.intact) {
      entries.push({ intact: false, seq: event.seq, hash: event.hash, why: 'its stored bytes no longer match their hash' });
      continue;
    }
    if (event.signature === null) {
      if (required) entries.push({ intact: false, seq: event.seq, hash: event.hash, why: 'unsigned, where signatures are required' });
      else if (signedBefore)
        entries.push({ intact: false, seq: event.seq, hash: event.hash, why: 'unsigned, after signed events of this card (once signed, always signed)' });
      else entries.push({ intact: true, seq: event.seq, hash: event.hash, body: event.body, signed: false });
      continue;
    }
    signedBefore = true;
    const { checkSignature } = await import('../crypto/signature.js');
    const check = checkSignature(canonicalize(event.body), event.signature, await options.keyring());
    if (check.kind === 'valid') entries.push({ intact: true, seq: event.seq, hash: event.hash, body: event.body, signed: true });
    else
      entries.push({
        intact: false,
        seq: event.seq,
        hash: event.hash,
        why: check.kind === 'invalid' ? `bad signature: ${check.detail}` : `signed by key ${check.keyid.slice(0, 16)}, which is not trusted here`,
      });
  }
  return entries;
}
