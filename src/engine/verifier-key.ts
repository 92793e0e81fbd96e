import { publicKeyFromHex } from '../crypto/ed25519.js';
import { homeKeyring, type Keyring } from '../crypto/keyring.js';

/**
 * The verifier keys this workspace trusts for remote receipts: the spec's
 * `verifier_key` (pinned in the allowed vouch.yaml, so an agent cannot swap
 * it without the operator allowing the edit) and the public keys in
 * VOUCH_HOME/keys. Never a key the server sent.
 */
export function verifierKeyring(home: string, verifierKey: string | null): Keyring {
  const ring = new Map(homeKeyring(home));
  if (verifierKey !== null) {
    const key = publicKeyFromHex(verifierKey);
    ring.set(key.keyid, { name: 'verifier_key', publicKey: key });
  }
  return ring;
}
