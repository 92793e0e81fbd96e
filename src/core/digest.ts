import { sha256Of } from './hash.js';
import { canonicalize } from './jcs.js';

/**
 * A lowercase hex SHA-256. Branded so that an arbitrary string (a path, an
 * id) cannot be passed where a digest is expected.
 */
export type Sha256 = string & { readonly __brand: 'sha256' };

const SHA256_HEX = /^[0-9a-f]{64}$/;

export function isSha256(value: unknown): value is Sha256 {
  return typeof value === 'string' && SHA256_HEX.test(value);
}

export function sha256(data: string | Uint8Array): Sha256 {
  return sha256Of(data).toString('hex') as Sha256;
}

/** SHA-256 of the RFC 8785 canonical form of a JSON value. */
export function digestJson(value: unknown): Sha256 {
  return sha256(canonicalize(value));
}
