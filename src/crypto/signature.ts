import { canonicalize } from '../core/jcs.js';
import type { Signer } from '../ledger/ledger.js';
import { signBytes, verifyBytes } from './ed25519.js';
import type { Keyring } from './keyring.js';
import type { SigningKey } from './keystore.js';

/**
 * A ledger entry's signature: Ed25519 over the entry's canonical body bytes
 * (the same bytes its hash covers, prev_hash included), stored beside the
 * body as canonical JSON `{"alg":"ed25519","keyid":"<sha256 of the raw public key>","sig":"<base64>"}`.
 */
export interface SignatureRecord {
  readonly alg: 'ed25519';
  readonly keyid: string;
  readonly sig: string;
}

export function signerFor(key: SigningKey): Signer {
  return (body) => {
    const record: SignatureRecord = {
      alg: 'ed25519',
      keyid: key.publicKey.keyid,
      sig: signBytes(Buffer.from(body, 'utf8'), key.privateKey).toString('base64'),
    };
    return canonicalize(record);
  };
}

export type SignatureCheck =
  | { readonly kind: 'valid'; readonly keyName: string; readonly keyid: string }
  /** Malformed, or does not verify under the key it names. */
  | { readonly kind: 'invalid'; readonly detail: string }
  /** Well-formed, but by a key that is not trusted here. */
  | { readonly kind: 'untrusted'; readonly keyid: string };

const BASE64 = /^[A-Za-z0-9+/]{86}==$/;

export function parseSignatureRecord(stored: string): SignatureRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(stored);
  } catch {
    return 'the signature is not JSON';
  }
  const record = value as Partial<SignatureRecord> | null;
  if (typeof record !== 'object' || record === null || record.alg !== 'ed25519') return 'the signature is not an ed25519 record';
  if (typeof record.keyid !== 'string' || !/^[0-9a-f]{64}$/.test(record.keyid)) return 'the signature names no valid key id';
  if (typeof record.sig !== 'string' || !BASE64.test(record.sig)) return 'the signature is not 64 bytes of base64';
  return { alg: 'ed25519', keyid: record.keyid, sig: record.sig };
}

/** Checks a stored signature against the exact body bytes, with the keys trusted here. */
export function checkSignature(body: string, stored: string, keyring: Keyring): SignatureCheck {
  const record = parseSignatureRecord(stored);
  if (typeof record === 'string') return { kind: 'invalid', detail: record };
  const trusted = keyring.get(record.keyid);
  if (!trusted) return { kind: 'untrusted', keyid: record.keyid };
  if (!verifyBytes(Buffer.from(body, 'utf8'), Buffer.from(record.sig, 'base64'), trusted.publicKey)) {
    return { kind: 'invalid', detail: `the signature does not verify under key "${trusted.name}" (${record.keyid.slice(0, 16)})` };
  }
  return { kind: 'valid', keyName: trusted.name, keyid: record.keyid };
}
