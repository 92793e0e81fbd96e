import { createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { sha256 } from '../core/digest.js';

/**
 * Ed25519 through node:crypto: no extra dependency. Keys travel as PEM
 * (PKCS#8 private, SPKI public, what openssl reads) or as the raw 32-byte
 * public key in hex (what libsodium, python-cryptography and most other
 * implementations take).
 */

/** A public key with the names it goes by. */
export interface PublicKey {
  readonly key: KeyObject;
  /** The raw 32-byte public key, lowercase hex. */
  readonly hex: string;
  /** SHA-256 of the raw public key, hex: the key id written beside every signature. */
  readonly keyid: string;
}

export function generatePair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ed25519');
}

/** Wraps a node KeyObject (public, or private from which the public half is derived). */
export function publicKeyOf(key: KeyObject): PublicKey {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  if (pub.asymmetricKeyType !== 'ed25519') throw new TypeError(`not an Ed25519 key (${pub.asymmetricKeyType ?? 'unknown type'})`);
  const jwk = pub.export({ format: 'jwk' });
  const raw = Buffer.from(jwk.x ?? '', 'base64url');
  if (raw.length !== 32) throw new TypeError('an Ed25519 public key has 32 bytes');
  return { key: pub, hex: raw.toString('hex'), keyid: sha256(raw) };
}

export function publicKeyFromHex(hex: string): PublicKey {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new TypeError('expected 64 hex characters (a raw Ed25519 public key)');
  const x = Buffer.from(hex, 'hex').toString('base64url');
  return publicKeyOf(createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' }));
}

export function publicKeyFromPem(pem: string): PublicKey {
  return publicKeyOf(createPublicKey({ key: pem, format: 'pem' }));
}

export function publicKeyPem(key: PublicKey): string {
  return key.key.export({ type: 'spki', format: 'pem' }).toString();
}

/** A detached Ed25519 signature (64 bytes) over the exact bytes given. */
export function signBytes(data: Uint8Array, privateKey: KeyObject): Buffer {
  return sign(null, data, privateKey);
}

export function verifyBytes(data: Uint8Array, signature: Uint8Array, key: PublicKey): boolean {
  if (signature.length !== 64) return false;
  try {
    return verify(null, data, key.key, signature);
  } catch {
    return false;
  }
}
