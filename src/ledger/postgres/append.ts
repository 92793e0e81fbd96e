import type { PoolClient } from 'pg';
import { sha256, type Sha256 } from '../../core/digest.js';
import { manifestDigest, type Manifest } from '../../scope/manifest.js';
import type { ReceiptDraft, StoredReceipt } from '../../receipt/receipt.js';
import type { Signer } from '../ledger.js';
import { encodeManifest, link } from '../chain.js';

/** The chain's position, locked: the next entry gets seq + 1 and links to hash. */
export interface LockedHead {
  seq: number;
  hash: Sha256 | null;
}

/**
 * Locks the chain for this transaction. Every append and gc takes this row
 * lock first, so writers on any machine queue here and none forks the
 * chain; the lock is released at commit or rollback, also when the
 * process holding it dies (the server ends its session).
 */
export async function lockHead(client: PoolClient): Promise<LockedHead> {
  const head = await client.query<{ seq: number }>('SELECT seq FROM head FOR UPDATE');
  const seq = head.rows[0]?.seq;
  if (seq === undefined) throw new Error('the ledger has no head row: the schema was altered');
  const last = await client.query<{ hash: string }>('SELECT hash FROM chain ORDER BY seq DESC LIMIT 1');
  return { seq, hash: (last.rows[0]?.hash as Sha256 | undefined) ?? null };
}

/** One chain row to write; `text` is the entry's canonical body, prev_hash included. */
export interface EntryRow {
  readonly id: string;
  readonly kind: string;
  readonly checkId: string | null;
  readonly manifest: string | null;
  readonly createdAt: number;
  readonly text: string;
  readonly signature: string | null;
  readonly session?: string | null;
  readonly subject?: string | null;
  /** A PASS receipt's fingerprint (the proven-state index); null otherwise. */
  readonly passFingerprint?: string | null;
}

/** Writes one entry at the next seq, inside a transaction holding the head lock; advances head. */
export async function insertLocked(client: PoolClient, head: LockedHead, row: EntryRow): Promise<{ seq: number; hash: Sha256 }> {
  const seq = head.seq + 1;
  const hash = sha256(row.text);
  await client.query(
    `INSERT INTO chain (seq, id, kind, check_id, manifest, created_at, hash, body, signature, session, subject, pass_fingerprint)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      seq,
      row.id,
      row.kind,
      row.checkId,
      row.manifest,
      row.createdAt,
      hash,
      row.text,
      row.signature,
      row.session ?? null,
      row.subject ?? null,
      row.passFingerprint ?? null,
    ],
  );
  await client.query('UPDATE head SET seq = $1', [seq]);
  head.seq = seq;
  head.hash = hash;
  return { seq, hash };
}

/**
 * Appends one receipt inside a transaction that holds the head lock, and
 * advances `head`. Used by the ledger's own appendReceipt and by the
 * verifier service, which writes a job's receipts and completes the job in
 * one transaction.
 */
export async function appendLocked(
  client: PoolClient,
  head: LockedHead,
  draft: ReceiptDraft,
  manifest: Manifest,
  sign: Signer | undefined,
): Promise<StoredReceipt> {
  const digest = manifestDigest(manifest);
  if (digest !== draft.manifest_digest) throw new Error('bug: receipt manifest_digest does not match its manifest');
  const { body, text, signature } = link<ReceiptDraft>(draft, head.hash, sign);
  // Stored once per digest: an unchanged tree adds no manifest bytes.
  await client.query('INSERT INTO manifests (digest, body) VALUES ($1, $2) ON CONFLICT (digest) DO NOTHING', [digest, encodeManifest(manifest)]);
  const { seq, hash } = await insertLocked(client, head, {
    id: body.id,
    kind: 'receipt',
    checkId: body.check_id,
    manifest: digest,
    createdAt: Date.parse(body.finished_at),
    text,
    signature,
    passFingerprint: body.verdict === 'PASS' ? body.fingerprint : null,
  });
  return { seq, hash, body, intact: true, signature };
}
