import { nodeCrypto } from './builtins.js';
import { nativeAddon } from './native.js';

// SHA-256 and HMAC-SHA256 of small things on the hot paths (a spec cache's
// MAC, a session's directory name, a scope's key), and the comparison of
// MACs. Through the addon they come from the OpenSSL Node already carries
// (native/digest.c), which spares a hook loading node:crypto's JavaScript
// (about 5 ms); without it, from node:crypto. Both give the same bytes
// (hash.test.ts). Streams of data (a file, a check's output) use
// node:crypto directly.

type Part = string | Uint8Array;

const bytes = (parts: readonly Part[]): Uint8Array[] => parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : part));

/** The SHA-256 of the parts in order, as of one string of bytes (strings as UTF-8). */
export function sha256Of(...parts: Part[]): Buffer {
  const native = nativeAddon().addon?.sha256;
  if (native) return native(bytes(parts));
  const hash = nodeCrypto().createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

/** The HMAC-SHA256 under `key` of the parts in order, as of one string of bytes (strings as UTF-8). */
export function hmacSha256(key: Uint8Array, ...parts: Part[]): Buffer {
  const native = nativeAddon().addon?.hmacSha256;
  if (native) return native(key, bytes(parts));
  const mac = nodeCrypto().createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/**
 * Whether two byte strings are equal, taking the same time wherever they
 * differ (for MACs, as timingSafeEqual does). Strings of different
 * lengths are unequal; a MAC's length is no secret.
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let differ = 0;
  for (let i = 0; i < a.length; i++) differ |= a[i]! ^ b[i]!;
  return differ === 0;
}
