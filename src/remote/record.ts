import { sha256 } from '../core/digest.js';
import { newId } from '../core/ids.js';
import type { ReceiptDraft, RemoteRecord } from '../receipt/receipt.js';
import type { RemoteOutcome } from './submit.js';

/**
 * The local receipt for an accepted remote one: the verifier's fields as
 * signed, a local id, and the signed original beside them, so `status` can
 * check the copy against it (and the signature again) on every read.
 */
export function localDraft(accepted: Extract<RemoteOutcome, { kind: 'accepted' }>, url: string): ReceiptDraft {
  const { prev_hash: _prev, remote: _nested, ...fields } = accepted.body;
  const remote: RemoteRecord = {
    url,
    job: accepted.job,
    receipt_id: accepted.receiptId,
    receipt_hash: sha256(accepted.text),
    keyid: accepted.keyid,
    body: accepted.text,
    signature: accepted.signature,
  };
  return { ...fields, id: newId(), remote };
}
