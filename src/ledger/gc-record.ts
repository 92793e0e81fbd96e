import { sha256 } from '../core/digest.js';
import type { GcPolicy } from './ledger.js';

/** An entry `vouch gc` removes, as the pruned table keeps it. */
export interface DoomedEntry {
  readonly seq: number;
  readonly hash: string;
}

/**
 * The chain entry recording a gc, the same on every backend: how many
 * entries went, their seq range, and the SHA-256 over "seq:hash\n" of each
 * in order, which `vouch audit` checks against the pruned table. Linked
 * into the chain like every entry (chain.ts adds its prev_hash).
 */
export function gcRecord(id: string, policy: GcPolicy, doomed: readonly DoomedEntry[]) {
  return {
    v: 1,
    kind: 'gc',
    id,
    at: policy.now.toISOString(),
    removed: doomed.length,
    first_seq: doomed[0]!.seq,
    last_seq: doomed[doomed.length - 1]!.seq,
    removed_digest: sha256(doomed.map((row) => `${row.seq}:${row.hash}\n`).join('')),
    policy: { keep_days: policy.keepDays ?? null, keep_per_check: policy.keepPerCheck ?? null },
  };
}
