import { hmacSha256, sameBytes } from '../core/hash.js';
import { BUILD_ID } from '../build-id.js';
import type { Sha256 } from '../core/digest.js';
import { STAT_WORDS } from './stat-key.js';

/**
 * What a scan found besides its files, kept as the scanner gave it: the
 * cache stores these, scope/ gives them their meaning (ScanProblem,
 * RefusedFile), so the cache need not import the scanner's types.
 */
export interface StoredProblem {
  readonly reason: string;
  readonly path: string;
  readonly detail: string;
}
export type StoredRefusal = readonly [path: string, why: string];

const BUILD = BUILD_ID ?? 'source';

/**
 * One scope's remembered result (scope/remembered.ts), self-contained: the
 * result of its last scan and a copy of the stat of every entry it depends
 * on, so that answering it reads this file alone, whatever else the stat
 * cache holds. A file of its own per scope (`.vouch/scopes/<key>`):
 * verifying one check reads and authenticates that check's entries, not the
 * whole workspace's.
 *
 *   0   "VOUCHRS" + format byte
 *   8   u32 entries N, files F, header bytes H, path bytes P, two zeros
 *   32  header: JSON {root, build, key, digest, problems, refused}, padded to 8
 *   ..  stats: N x 6 signed 64-bit integers (stat-key.ts), native byte order
 *   ..  path starts: N x u32
 *   ..  groups: F bytes (1 source, 2 test, 3 artifact, 4 input), padded to 8
 *   ..  digests: F x 32 bytes
 *   ..  paths: P bytes, each path followed by NUL
 *   end HMAC-SHA256 of everything before it (key.ts)
 *
 * The first F entries are the manifest's files in order, the rest the
 * directories. Anything that does not check out decodes to undefined.
 */
export interface ScopeRecord {
  readonly key: string;
  readonly digest: Sha256;
  readonly problems: readonly StoredProblem[];
  readonly refused: readonly StoredRefusal[];
  readonly count: number;
  readonly files: number;
  readonly stats: BigInt64Array;
  readonly pathStarts: Uint32Array;
  readonly groups: Uint8Array;
  readonly digests: Uint8Array;
  readonly paths: Buffer;
}

const MAGIC = Buffer.from('VOUCHRS\u0001', 'latin1');
const FIXED = 32;
const MAC_BYTES = 32;
const DIGEST_BYTES = 32;
const pad8 = (n: number): number => (n + 7) & ~7;

function layout(count: number, files: number, headerBytes: number, pathBytes: number) {
  const statsAt = FIXED + pad8(headerBytes);
  const startsAt = statsAt + count * STAT_WORDS * 8;
  const groupsAt = startsAt + count * 4;
  const digestsAt = pad8(groupsAt + files);
  const pathsAt = digestsAt + files * DIGEST_BYTES;
  return { statsAt, startsAt, groupsAt, digestsAt, pathsAt, end: pathsAt + pathBytes };
}

export function encodeRecord(record: ScopeRecord, root: string, key: Buffer): Buffer {
  const { count, files } = record;
  const header = Buffer.from(
    JSON.stringify({ root, build: BUILD, key: record.key, digest: record.digest, problems: record.problems, refused: record.refused }),
    'utf8',
  );
  const at = layout(count, files, header.length, record.paths.length);
  const blob = Buffer.alloc(at.end + MAC_BYTES);
  MAGIC.copy(blob, 0);
  [count, files, header.length, record.paths.length].forEach((n, i) => blob.writeUInt32LE(n, 8 + 4 * i));
  header.copy(blob, FIXED);
  bytesOf(record.stats, count * STAT_WORDS * 8).copy(blob, at.statsAt);
  bytesOf(record.pathStarts, count * 4).copy(blob, at.startsAt);
  bytesOf(record.groups, files).copy(blob, at.groupsAt);
  bytesOf(record.digests, files * DIGEST_BYTES).copy(blob, at.digestsAt);
  record.paths.copy(blob, at.pathsAt);
  mac(key, blob.subarray(0, at.end)).copy(blob, at.end);
  return blob;
}

/** `build` is this build's id; tests of a built CLI pass the id of that build. */
export function decodeRecord(blob: Buffer, key: Buffer, root: string, scope: string, build: string = BUILD): ScopeRecord | undefined {
  if (blob.length < FIXED + MAC_BYTES || !blob.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const [count, files, headerBytes, pathBytes] = [0, 1, 2, 3].map((i) => blob.readUInt32LE(8 + 4 * i)) as [number, number, number, number];
  if (files > count) return undefined;
  const at = layout(count, files, headerBytes, pathBytes);
  if (at.end + MAC_BYTES !== blob.length) return undefined;
  if (!sameBytes(mac(key, blob.subarray(0, at.end)), blob.subarray(at.end))) return undefined;
  let header: { root?: unknown; build?: unknown; key?: unknown; digest?: Sha256; problems?: StoredProblem[]; refused?: StoredRefusal[] } | null;
  try {
    header = JSON.parse(blob.toString('utf8', FIXED, FIXED + headerBytes)) as typeof header;
  } catch {
    return undefined;
  }
  // The key is per user: the root and the scope tell one record from another; another build may mean things otherwise.
  if (header?.root !== root || header.build !== build || header.key !== scope || !header.digest || !header.problems || !header.refused) return undefined;
  const aligned = (blob.byteOffset & 7) === 0 ? blob : Buffer.from(blob);
  const pathStarts = new Uint32Array(aligned.buffer, aligned.byteOffset + at.startsAt, count);
  const paths = aligned.subarray(at.pathsAt, at.end);
  for (let i = 0; i < count; i++) {
    const next = i + 1 < count ? pathStarts[i + 1]! : pathBytes;
    if (pathStarts[i]! >= next || paths[next - 1] !== 0) return undefined;
  }
  return {
    key: scope,
    digest: header.digest,
    problems: header.problems,
    refused: header.refused,
    count,
    files,
    stats: new BigInt64Array(aligned.buffer, aligned.byteOffset + at.statsAt, count * STAT_WORDS),
    pathStarts,
    groups: aligned.subarray(at.groupsAt, at.groupsAt + files),
    digests: aligned.subarray(at.digestsAt, at.digestsAt + files * DIGEST_BYTES),
    paths,
  };
}

/** Entry i's path. */
export function recordPath(record: ScopeRecord, i: number): string {
  const start = record.pathStarts[i]!;
  return record.paths.toString('utf8', start, record.paths.indexOf(0, start));
}

/** File i's SHA-256, as hex. */
export function recordSha(record: ScopeRecord, i: number): Sha256 {
  return Buffer.from(record.digests.buffer, record.digests.byteOffset + i * DIGEST_BYTES, DIGEST_BYTES).toString('hex') as Sha256;
}

function bytesOf(array: ArrayBufferView, length: number): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, length);
}

function mac(key: Buffer, data: Buffer): Buffer {
  return hmacSha256(key, 'vouch scope record\0', data);
}
