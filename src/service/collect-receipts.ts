import { canonicalize } from '../core/jcs.js';
import { sha256 } from '../core/digest.js';
import { manifestFrom, type AppendOptions, type ManifestOf, type ReceiptSink } from '../ledger/ledger.js';
import type { ReceiptBody, ReceiptDraft, StoredReceipt } from '../receipt/receipt.js';
import type { PendingReceipt } from './jobs.js';

/**
 * What the engine appends to while a worker runs a job: nothing reaches the
 * chain until the worker completes the job, in one transaction that also
 * checks it still holds the lease. The engine appends through this narrow
 * sink (ReceiptSink), so nothing here has to pretend to be a whole ledger.
 */
export class CollectingReceipts implements ReceiptSink {
  readonly pending: PendingReceipt[] = [];

  appendReceipt(draft: ReceiptDraft, manifest: ManifestOf, _options?: AppendOptions): Promise<StoredReceipt> {
    this.pending.push({ draft, manifest: manifestFrom(manifest) });
    // Provisional: the real seq, prev_hash, hash and signature are given at completion.
    const body: ReceiptBody = { ...draft, prev_hash: null };
    return Promise.resolve({ seq: 0, hash: sha256(canonicalize(body)), body, intact: true, signature: null });
  }
}
