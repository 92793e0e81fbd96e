import type { Identity } from './hash-file.js';
import type { Sha256 } from '../core/digest.js';
import type { HashFailure, HashOutcome } from './hash-file.js';

/**
 * What a hash worker is given, packed in shared memory so that starting a
 * worker copies nothing per file: structured-cloning 30,000 path strings
 * costs the main thread more than a worker's start-up.
 */
export interface WorkerInput {
  /** The absolute paths, each followed by NUL (SharedArrayBuffer). */
  readonly text: SharedArrayBuffer;
  /** Where each path starts in `text` (SharedArrayBuffer of Uint32). */
  readonly starts: SharedArrayBuffer;
  /** [dev, ino] lstat saw per path (SharedArrayBuffer of BigInt64), and whether it was looked at (one byte per path). */
  readonly expected: SharedArrayBuffer;
  readonly seen: SharedArrayBuffer;
  readonly within: string;
  /** The lean per-file sequence (hash-file.ts): the caller checks the directories afterwards. */
  readonly lean: boolean;
  /** SharedArrayBuffer holding one Int32: the next unclaimed index. */
  readonly counter: SharedArrayBuffer;
  readonly batch: number;
}

/** Packs jobs into a WorkerInput's shared arrays. */
export function packJobs(
  jobs: readonly { readonly absolute: string; readonly expected?: { readonly dev: bigint | number; readonly ino: bigint | number } }[],
): Pick<WorkerInput, 'text' | 'starts' | 'expected' | 'seen'> {
  const bytes = Buffer.from(jobs.map((job) => `${job.absolute}\0`).join(''));
  const text = new SharedArrayBuffer(bytes.length);
  bytes.copy(Buffer.from(text));
  const starts = new SharedArrayBuffer(jobs.length * 4);
  const startsView = new Uint32Array(starts);
  const expected = new SharedArrayBuffer(jobs.length * 16);
  const expectedView = new BigInt64Array(expected);
  const seen = new SharedArrayBuffer(jobs.length);
  const seenView = new Uint8Array(seen);
  let at = 0;
  jobs.forEach((job, i) => {
    startsView[i] = at;
    at = bytes.indexOf(0, at) + 1;
    if (job.expected) {
      expectedView[2 * i] = BigInt(job.expected.dev);
      expectedView[2 * i + 1] = BigInt(job.expected.ino);
      seenView[i] = 1;
    }
  });
  return { text, starts, expected, seen };
}

/** Reads the jobs of a packed input (views made once, per worker). */
export class PackedJobs {
  private readonly text: Buffer;
  private readonly starts: Uint32Array;
  private readonly expected: BigInt64Array;
  private readonly seen: Uint8Array;
  readonly count: number;

  constructor(input: WorkerInput) {
    this.text = Buffer.from(input.text);
    this.starts = new Uint32Array(input.starts);
    this.expected = new BigInt64Array(input.expected);
    this.seen = new Uint8Array(input.seen);
    this.count = this.starts.length;
  }

  /** Job i: its path and the identity lstat saw (undefined when it was not looked at). */
  job(i: number): { absolute: string; expected: { dev: bigint; ino: bigint } | undefined } {
    const start = this.starts[i]!;
    const absolute = this.text.toString('utf8', start, this.text.indexOf(0, start));
    return { absolute, expected: this.seen[i] === 1 ? { dev: this.expected[2 * i]!, ino: this.expected[2 * i + 1]! } : undefined };
  }
}

/** One batch of results, or the end of a worker's work. */
export type WorkerMessage = { readonly start: number; readonly outcomes: readonly EncodedOutcome[] } | { readonly done: true };

/** A HashOutcome as plain data (BigIntStats does not cross threads as a class). */
export type EncodedOutcome =
  | readonly [ok: 1, sha256: string, size: number, dev: bigint, ino: bigint, mode: bigint, bytes: bigint, mtimeNs: bigint, ctimeNs: bigint]
  | readonly [ok: 0, why: HashFailure, detail: string];

export function encodeOutcome(outcome: HashOutcome): EncodedOutcome {
  if (!outcome.ok) return [0, outcome.why, outcome.detail];
  const { stat } = outcome;
  return [1, outcome.sha256, outcome.size, stat.dev, stat.ino, stat.mode, stat.size, stat.mtimeNs, stat.ctimeNs];
}

export function decodeOutcome(encoded: EncodedOutcome): HashOutcome {
  if (encoded[0] === 0) return { ok: false, why: encoded[1], detail: encoded[2] };
  const [, sha256, size, dev, ino, mode, bytes, mtimeNs, ctimeNs] = encoded;
  return { ok: true, sha256: sha256 as Sha256, size, stat: { dev, ino, mode, size: bytes, mtimeNs, ctimeNs } };
}

/** A file the cache could not vouch for: it is opened and hashed. */
export interface HashJob {
  readonly path: string;
  readonly absolute: string;
  /** The identity lstat saw, when it was looked at: a different file at open time is a swap. */
  readonly expected?: Identity;
}
