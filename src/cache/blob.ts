import { createHmac, timingSafeEqual } from 'node:crypto';
import { BUILD_ID } from '../build-id.js';
import { STAT_WORDS } from './stat-key.js';

const BUILD = BUILD_ID ?? 'source';

/**
 * The stat cache on disk: one blob per workspace, so loading it is one read
 * and a handful of typed-array views rather than one row per file.
 *
 *   0   "VOUCHSC" + format byte
 *   8   u32 entry count N, u32 header bytes H, u32 text bytes T, u32 zero
 *   24  header: JSON {"root": workspace root, "build": BUILD_ID}, padded to 8 bytes
 *   ..  stats: N x 6 signed 64-bit integers (stat-key.ts), native byte order
 *   ..  kinds: N bytes (1 directory, 2 file), padded to 8 bytes
 *   ..  text: UTF-8, 2N strings joined by NUL: N paths, then N payloads
 *       (a file's SHA-256 hex, or a directory's listing: dir-listing.ts)
 *   end HMAC-SHA256 of everything before it, keyed by a secret kept in
 *       VOUCH_HOME (key.ts)
 *
 * Whatever does not check out (short, foreign magic, wrong MAC, another
 * workspace's root, another build of vouch, inconsistent counts) decodes to
 * undefined: the caller
 * starts from an empty cache, it never trusts a damaged or foreign one.
 */
export interface CacheImage {
  readonly root: string;
  readonly paths: readonly string[];
  readonly kinds: Uint8Array;
  /** STAT_WORDS per entry. */
  readonly stats: BigInt64Array;
  readonly payloads: readonly string[];
}

export const KIND_DIR = 1;
export const KIND_FILE = 2;

/** The last byte is the format: any change to what is stored, payloads included, takes a new one. */
const MAGIC = Buffer.from('VOUCHSC\u0002', 'latin1');
const FIXED = 24;
const MAC_BYTES = 32;

const pad8 = (n: number): number => (n + 7) & ~7;

export function encodeCache(image: CacheImage, key: Buffer): Buffer {
  const count = image.paths.length;
  const header = Buffer.from(JSON.stringify({ root: image.root, build: BUILD }), 'utf8');
  const text = Buffer.from(`${image.paths.join('\0')}\0${image.payloads.join('\0')}`, 'utf8');
  const statsAt = FIXED + pad8(header.length);
  const kindsAt = statsAt + count * STAT_WORDS * 8;
  const textAt = kindsAt + pad8(count);
  const macAt = textAt + text.length;
  const blob = Buffer.alloc(macAt + MAC_BYTES);
  MAGIC.copy(blob, 0);
  blob.writeUInt32LE(count, 8);
  blob.writeUInt32LE(header.length, 12);
  blob.writeUInt32LE(text.length, 16);
  header.copy(blob, FIXED);
  Buffer.from(image.stats.buffer, image.stats.byteOffset, count * STAT_WORDS * 8).copy(blob, statsAt);
  Buffer.from(image.kinds.buffer, image.kinds.byteOffset, count).copy(blob, kindsAt);
  text.copy(blob, textAt);
  mac(key, blob.subarray(0, macAt)).copy(blob, macAt);
  return blob;
}

/** `build` is this build's id; tests of a built CLI pass the id of that build. */
export function decodeCache(blob: Buffer, key: Buffer, root: string, build: string = BUILD): CacheImage | undefined {
  if (blob.length < FIXED + MAC_BYTES || !blob.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const macAt = blob.length - MAC_BYTES;
  if (!timingSafeEqual(mac(key, blob.subarray(0, macAt)), blob.subarray(macAt))) return undefined;
  const count = blob.readUInt32LE(8);
  const headerBytes = blob.readUInt32LE(12);
  const textBytes = blob.readUInt32LE(16);
  const statsAt = FIXED + pad8(headerBytes);
  const kindsAt = statsAt + count * STAT_WORDS * 8;
  const textAt = kindsAt + pad8(count);
  if (textAt + textBytes !== macAt) return undefined;
  let header: unknown;
  try {
    header = JSON.parse(blob.toString('utf8', FIXED, FIXED + headerBytes));
  } catch {
    return undefined;
  }
  // The MAC key is per user: the root tells one workspace's cache from
  // another's. The build: another vouch may store or mean things otherwise.
  const fields = header as { root?: unknown; build?: unknown } | null;
  if (fields?.root !== root || fields.build !== build) return undefined;
  const strings = count === 0 ? [] : blob.toString('utf8', textAt, macAt).split('\0');
  if (strings.length !== (count === 0 ? 0 : 2 * count)) return undefined;
  const statBytes = count * STAT_WORDS * 8;
  // A typed-array view needs an aligned offset; copy when the read buffer is not.
  const stats =
    (blob.byteOffset + statsAt) % 8 === 0
      ? new BigInt64Array(blob.buffer, blob.byteOffset + statsAt, count * STAT_WORDS)
      : new BigInt64Array(Uint8Array.prototype.slice.call(blob, statsAt, statsAt + statBytes).buffer);
  return {
    root,
    paths: strings.slice(0, count),
    kinds: blob.subarray(kindsAt, kindsAt + count),
    stats,
    payloads: strings.slice(count),
  };
}

function mac(key: Buffer, data: Buffer): Buffer {
  return createHmac('sha256', key).update(data).digest();
}
