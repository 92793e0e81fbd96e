import { canonicalize } from '../core/jcs.js';
import { sha256 } from '../core/digest.js';
import type { AppendOptions, Ledger } from '../ledger/ledger.js';
import type { ReceiptBody, ReceiptDraft, StoredReceipt } from '../receipt/receipt.js';
import type { Manifest } from '../scope/manifest.js';
import type { PendingReceipt } from './jobs.js';

/**
 * What the engine appends to while a worker runs a job: nothing reaches the
 * chain until the worker completes the job, in one transaction that also
 * checks it still holds the lease. Only appending is needed by the engine.
 */
export class CollectingLedger implements Ledger {
  readonly pending: PendingReceipt[] = [];

  appendReceipt(draft: ReceiptDraft, manifest: Manifest, _options?: AppendOptions): Promise<StoredReceipt> {
    this.pending.push({ draft, manifest });
    // Provisional: the real seq, prev_hash, hash and signature are given at completion.
    const body: ReceiptBody = { ...draft, prev_hash: null };
    return Promise.resolve({ seq: 0, hash: sha256(canonicalize(body)), body, intact: true, signature: null });
  }

  latestReceipts(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  findReceipt(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  listReceipts(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  getManifest(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  gc(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  appendSessionEntry(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  sessionEntries(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  recentSessions(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  appendEvent(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  events(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  subjects(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  latestEvents(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  stats(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  entries(): never {
    throw new Error('bug: a job ledger takes receipts only, and is never read');
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}
