import { canonicalize } from '../core/jcs.js';
import { keyringOf } from '../crypto/keyring.js';
import type { SigningKey } from '../crypto/keystore.js';
import { checkSignature } from '../crypto/signature.js';
import type { Ledger } from '../ledger/ledger.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import { INTOTO_PAYLOAD_TYPE, signEnvelope, type Envelope } from './dsse.js';
import { receiptStatement } from './statement.js';

/** Why a receipt is not exported. */
export interface Refusal {
  readonly id: string;
  readonly why: string;
}

export type ExportResult = { readonly ok: true; readonly envelopes: readonly Envelope[] } | { readonly ok: false; readonly refusals: readonly Refusal[] };

/**
 * Turns receipts into DSSE envelopes signed by `key`. A receipt is exported
 * only when it is intact and its ledger signature, made when it was
 * recorded, verifies under that same key: export must not launder an
 * unsigned or foreign receipt into a signed attestation.
 */
export async function exportReceipts(ledger: Ledger, receipts: readonly StoredReceipt[], key: SigningKey): Promise<ExportResult> {
  const keyring = keyringOf([{ name: key.name, publicKey: key.publicKey }]);
  const refusals: Refusal[] = [];
  const envelopes: Envelope[] = [];
  for (const receipt of receipts) {
    const id = receipt.body.id;
    if (!receipt.intact) {
      refusals.push({ id, why: 'its stored bytes no longer match its hash' });
      continue;
    }
    if (receipt.signature === null) {
      refusals.push({ id, why: 'it was recorded unsigned' });
      continue;
    }
    const check = checkSignature(canonicalize(receipt.body), receipt.signature, keyring);
    if (check.kind !== 'valid') {
      refusals.push({ id, why: check.kind === 'untrusted' ? `it was signed by another key (${check.keyid.slice(0, 16)})` : check.detail });
      continue;
    }
    const manifest = await ledger.getManifest(receipt.body.manifest_digest);
    if (!manifest) {
      refusals.push({ id, why: 'its file manifest is missing or damaged in the ledger' });
      continue;
    }
    const payload = Buffer.from(canonicalize(receiptStatement(receipt, manifest)), 'utf8');
    envelopes.push(signEnvelope(INTOTO_PAYLOAD_TYPE, payload, key));
  }
  return refusals.length > 0 ? { ok: false, refusals } : { ok: true, envelopes };
}
