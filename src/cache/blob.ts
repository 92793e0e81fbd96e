import { hmacSha256, sameBytes } from '../core/hash.js';
import { BUILD_ID } from '../build-id.js';
import { STAT_WORDS } from './stat-key.js';

const BUILD = BUILD_ID ?? 'source';

/**
 * The stat cache on disk: one blob per workspace, laid out so that loading
 * it is one read, a MAC check and a handful of typed-array views. Nothing is
 * decoded into strings until it is asked for.
 *
 *   0   "VOUCHSC" + format byte
 *   8   u32 entries N, header bytes H, path bytes P, listing bytes L, two zeros
 *   32  header: JSON {root, build}, padded to 8 bytes
 *   ..  stats: N x 6 signed 64-bit integers (stat-key.ts), native byte order
 *   ..  path starts: N x u32 (byte offset of each path in the path text)
 *   ..  kinds: N bytes (1 directory, 2 file), padded to 8
 *   ..  digests: N x 32 bytes, a file's SHA-256 (zero for a directory)
 *   ..  paths: P bytes, each path followed by NUL
 *   ..  HMAC-SHA256 of everything before it, keyed by a secret kept in
 *       VOUCH_HOME (key.ts)
 *   ..  listings: L bytes, one per entry followed by NUL: a directory's
 *       listing (dir-listing.ts), "?" for a directory whose stat alone is
 *       known, empty for a file
 *   end HMAC-SHA256 of the first MAC and the listings
 *
 * Two MACs so that a warm call, which needs no listing, checks only the
 * part it reads; the listings (a third of the file) are checked when the
 * first one is asked for, and bound to the rest by the first MAC.
 *
 * Whatever does not check out (short, foreign magic, wrong MAC, another
 * workspace's root, another build of vouch, inconsistent counts or offsets)
 * decodes to undefined: the caller starts from an empty cache, it never
 * trusts a damaged or foreign one.
 */
export interface CacheImage {
  readonly root: string;
  readonly count: number;
  readonly kinds: Uint8Array;
  /** STAT_WORDS per entry. */
  readonly stats: BigInt64Array;
  /** 32 bytes per entry. */
  readonly digests: Uint8Array;
  /** Every path followed by NUL, in entry order. */
  readonly paths: Buffer;
  readonly pathStarts: Uint32Array;
  /** Every entry's listing text followed by NUL, in entry order. */
  readonly listings: Buffer;
  /** Whether `listings` carries its MAC (checked once, when first asked): a cache whose listings fail it is used without them. */
  readonly listingsSound: () => boolean;
}

export const KIND_DIR = 1;
export const KIND_FILE = 2;
export const DIGEST_BYTES = 32;

/** The last byte is the format: any change to what is stored, payloads included, takes a new one. */
const MAGIC = Buffer.from('VOUCHSC\u0003', 'latin1');
const FIXED = 32;
const MAC_BYTES = 32;

const pad8 = (n: number): number => (n + 7) & ~7;

interface Layout {
  readonly macAt: number;
  readonly statsAt: number;
  readonly startsAt: number;
  readonly kindsAt: number;
  readonly digestsAt: number;
  readonly pathsAt: number;
  readonly listingsAt: number;
  readonly end: number;
}

function layout(count: number, headerBytes: number, pathBytes: number, listingBytes: number): Layout {
  const statsAt = FIXED + pad8(headerBytes);
  const startsAt = statsAt + count * STAT_WORDS * 8;
  const kindsAt = startsAt + count * 4;
  const digestsAt = pad8(kindsAt + count);
  const pathsAt = digestsAt + count * DIGEST_BYTES;
  const macAt = pathsAt + pathBytes;
  const listingsAt = macAt + MAC_BYTES;
  return { macAt, statsAt, startsAt, kindsAt, digestsAt, pathsAt, listingsAt, end: listingsAt + listingBytes };
}

export function encodeCache(image: Omit<CacheImage, 'listingsSound'>, key: Buffer): Buffer {
  const { count } = image;
  const header = Buffer.from(JSON.stringify({ root: image.root, build: BUILD }), 'utf8');
  const at = layout(count, header.length, image.paths.length, image.listings.length);
  const blob = Buffer.alloc(at.end + MAC_BYTES);
  MAGIC.copy(blob, 0);
  [count, header.length, image.paths.length, image.listings.length].forEach((n, i) => blob.writeUInt32LE(n, 8 + 4 * i));
  header.copy(blob, FIXED);
  bytesOf(image.stats, count * STAT_WORDS * 8).copy(blob, at.statsAt);
  bytesOf(image.pathStarts, count * 4).copy(blob, at.startsAt);
  bytesOf(image.kinds, count).copy(blob, at.kindsAt);
  bytesOf(image.digests, count * DIGEST_BYTES).copy(blob, at.digestsAt);
  image.paths.copy(blob, at.pathsAt);
  mac(key, blob.subarray(0, at.macAt)).copy(blob, at.macAt);
  image.listings.copy(blob, at.listingsAt);
  mac(key, blob.subarray(at.macAt, at.end)).copy(blob, at.end);
  return blob;
}

/** `build` is this build's id; tests of a built CLI pass the id of that build. */
export function decodeCache(blob: Buffer, key: Buffer, root: string, build: string = BUILD): CacheImage | undefined {
  if (blob.length < FIXED + 2 * MAC_BYTES || !blob.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const [count, headerBytes, pathBytes, listingBytes] = [0, 1, 2, 3].map((i) => blob.readUInt32LE(8 + 4 * i)) as [number, number, number, number];
  const at = layout(count, headerBytes, pathBytes, listingBytes);
  // The counts are not yet trusted: they must describe exactly this many bytes before anything is read by them.
  if (at.end + MAC_BYTES !== blob.length) return undefined;
  if (!sameBytes(mac(key, blob.subarray(0, at.macAt)), blob.subarray(at.macAt, at.macAt + MAC_BYTES))) return undefined;
  let header: { root?: unknown; build?: unknown } | null;
  try {
    header = JSON.parse(blob.toString('utf8', FIXED, FIXED + headerBytes)) as typeof header;
  } catch {
    return undefined;
  }
  // The MAC key is per user: the root tells one workspace's cache from
  // another's. The build: another vouch may store or mean things otherwise.
  if (header?.root !== root || header.build !== build) return undefined;
  // A typed-array view needs an aligned offset; copy once when the read buffer is not.
  const aligned = (blob.byteOffset & 7) === 0 ? blob : Buffer.from(blob);
  const stats = new BigInt64Array(aligned.buffer, aligned.byteOffset + at.statsAt, count * STAT_WORDS);
  const pathStarts = new Uint32Array(aligned.buffer, aligned.byteOffset + at.startsAt, count);
  const kinds = aligned.subarray(at.kindsAt, at.kindsAt + count);
  const paths = aligned.subarray(at.pathsAt, at.pathsAt + pathBytes);
  // Every path must start inside the text and end with its NUL before the next.
  for (let i = 0; i < count; i++) {
    const start = pathStarts[i]!;
    const next = i + 1 < count ? pathStarts[i + 1]! : pathBytes;
    if (start >= next || next > pathBytes || paths[next - 1] !== 0) return undefined;
  }
  let sound: boolean | undefined;
  return {
    root,
    count,
    kinds,
    stats,
    digests: aligned.subarray(at.digestsAt, at.digestsAt + count * DIGEST_BYTES),
    paths,
    pathStarts,
    listings: aligned.subarray(at.listingsAt, at.listingsAt + listingBytes),
    listingsSound: () => (sound ??= sameBytes(mac(key, aligned.subarray(at.macAt, at.end)), aligned.subarray(at.end, at.end + MAC_BYTES))),
  };
}

/** The paths of an image as strings (tests, diagnostics). */
export function pathsOf(image: CacheImage): string[] {
  return Array.from({ length: image.count }, (_, i) => image.paths.toString('utf8', image.pathStarts[i], image.paths.indexOf(0, image.pathStarts[i])));
}

function bytesOf(array: ArrayBufferView, length: number): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, length);
}

function mac(key: Buffer, data: Buffer): Buffer {
  return hmacSha256(key, data);
}
