import type { PublicKey } from './ed25519.js';
import { listKeys } from './keystore.js';

/** The public keys whose signatures count, by key id. */
export type Keyring = ReadonlyMap<string, { readonly name: string; readonly publicKey: PublicKey }>;

/** Every valid public key under VOUCH_HOME/keys: the keys this machine trusts. */
export function homeKeyring(home: string): Keyring {
  const ring = new Map<string, { name: string; publicKey: PublicKey }>();
  for (const listing of listKeys(home)) {
    if (listing.ok) ring.set(listing.key.publicKey.keyid, { name: listing.key.name, publicKey: listing.key.publicKey });
  }
  return ring;
}

/** A keyring of exactly the keys given (e.g. `--key` on the command line). */
export function keyringOf(keys: readonly { name: string; publicKey: PublicKey }[]): Keyring {
  return new Map(keys.map((entry) => [entry.publicKey.keyid, entry]));
}
