import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { canonicalize } from '../../core/jcs.js';
import { sha256, type Sha256 } from '../../core/digest.js';
import type { ReceiptBody, StoredReceipt } from '../../receipt/receipt.js';
import type { Manifest } from '../../scope/manifest.js';
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
  let body: ReceiptBody;
  try {
    body = JSON.parse(row.body) as ReceiptBody;
  } catch {
    return { seq: row.seq, hash: row.hash as Sha256, body: { id: row.id } as ReceiptBody, intact: false, signature: row.signature };
  }
  const intact = sha256(row.body) === row.hash && body.id === row.id;
  return { seq: row.seq, hash: row.hash as Sha256, body, intact, signature: row.signature };
}

/** Manifests are stored as deflated canonical JSON, once per digest. */
export function encodeManifest(manifest: Manifest): Buffer {
  return deflateRawSync(canonicalize({ files: manifest.files, refused: manifest.refused }));
}

export function decodeManifest(blob: Buffer): Manifest | undefined {
  try {
    return JSON.parse(inflateRawSync(blob).toString('utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

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
