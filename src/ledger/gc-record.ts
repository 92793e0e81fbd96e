import { isSha256, sha256 } from '../core/digest.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import type { GcPolicy, GcResult, ReleasedLog } from './ledger.js';

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

/**
 * The logs of receipts gc removes. Only intact receipts count: a body
 * edited to name another receipt's log is not believed (and the log's own
 * header must name the removed receipt before its file goes).
 */
export function releasedLogs(removed: readonly StoredReceipt[]): Pick<GcResult, 'releasedLogs'> {
  const logs: ReleasedLog[] = [];
  for (const receipt of removed) {
    const digest = receipt.body.log?.sha256;
    if (receipt.intact && isSha256(digest)) logs.push({ receipt: receipt.body.id, sha256: digest });
  }
  return logs.length > 0 ? { releasedLogs: logs } : {};
}
