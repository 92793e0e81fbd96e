import { randomBytes } from 'node:crypto';

// Crockford base32: no I, L, O, U, so ids survive being read aloud or retyped.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A ULID-shaped id in lowercase: 10 characters of millisecond time then 16 of
 * randomness. Ids sort by creation time, which keeps `vouch log` and prefix
 * lookups natural, and need no coordination between concurrent writers.
 */
export function newId(now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const random = randomBytes(16);
  let rest = '';
  for (const byte of random) rest += ALPHABET[byte % 32]!;
  return time + rest;
}

export const ID_PATTERN = /^[0-9a-hjkmnp-tv-z]{26}$/;
