import type { Sha256 } from '../core/digest.js';
import type { HashFailure, HashOutcome } from './hash-file.js';

/** What a hash worker is given: every path, and a shared counter to claim batches from. */
export interface WorkerInput {
  readonly paths: readonly string[];
  /** [dev, ino] lstat saw, or null when the file was not looked at before. */
  readonly expected: readonly (readonly [bigint, bigint] | null)[];
  readonly within: string;
  /** The lean per-file sequence (hash-file.ts): the caller checks the directories afterwards. */
  readonly lean: boolean;
  /** SharedArrayBuffer holding one Int32: the next unclaimed index. */
  readonly counter: SharedArrayBuffer;
  readonly batch: number;
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
