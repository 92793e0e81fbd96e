import { nodeCrypto } from './builtins.js';

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
  const random = nodeCrypto().randomBytes(16);
  let rest = '';
  for (const byte of random) rest += ALPHABET[byte % 32]!;
  return time + rest;
}

export const ID_PATTERN = /^[0-9a-hjkmnp-tv-z]{26}$/;

/** Characters in an id. */
export const ID_LENGTH = 26;

/** Characters of an id's random part shown to people as its short form. */
export const SHORT_ID_LENGTH = 8;

/**
 * The short form of an id shown to people: the last 8 characters, from the
 * random part. A leading prefix is time: ids made in the same second share
 * their first 8 characters, so a 6-character prefix collides as soon as two
 * checks run together; 8 random base32 characters (40 bits) do not, in any
 * ledger a person reads. Lookups accept it, as they accept leading prefixes.
 */
export function shortId(id: string): string {
  return id.slice(-SHORT_ID_LENGTH);
}
