import type { Sha256 } from '../../core/digest.js';
import { intact, parseBody } from '../chain.js';
import type { ReceiptBody, StoredReceipt } from '../../receipt/receipt.js';
import type { LedgerEntry } from '../ledger.js';

/** A chain row as the receipt queries select it. */
export interface ReceiptRow {
  seq: number;
  id: string;
  hash: string;
  body: string;
  signature: string | null;
}

export const RECEIPT_COLUMNS = 'seq, id, hash, body, signature';

/**
 * A stored receipt, checked only against its own hash: whether the chain
 * links and signatures hold is `vouch audit`'s work, not every read's.
 */
export function decodeReceipt(row: ReceiptRow): StoredReceipt {
  const body = parseBody<ReceiptBody>(row.body);
  if (body === undefined) return { seq: row.seq, hash: row.hash as Sha256, body: { id: row.id } as ReceiptBody, intact: false, signature: row.signature };
  return { seq: row.seq, hash: row.hash as Sha256, body, intact: intact(row.body, row.hash, body, row.id), signature: row.signature };
}

export { decodeManifest, encodeManifest } from '../chain.js';

export interface EntryRow {
  state: 'live' | 'pruned';
  seq: number;
  id: string;
  kind: string | null;
  check_id: string | null;
  manifest: string | null;
  hash: string;
  body: string | null;
  signature: string | null;
  gc_id: string | null;
  subject: string | null;
}

export function toEntry(row: EntryRow): LedgerEntry {
  if (row.state === 'pruned') return { state: 'pruned', seq: row.seq, id: row.id, hash: row.hash, gcId: row.gc_id ?? '' };
  return {
    state: 'live',
    seq: row.seq,
    id: row.id,
    kind: row.kind ?? '',
    checkId: row.check_id,
    manifest: row.manifest,
    hash: row.hash,
    body: row.body ?? '',
    signature: row.signature,
    subject: row.subject,
  };
}
