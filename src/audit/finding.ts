/**
 * What `vouch audit` can find wrong with a ledger, one stable code per kind
 * of damage. Every finding names the entry (seq and id) where it shows.
 */
export type AuditCode =
  /** The stored body no longer hashes to the hash the chain records for it. */
  | 'body_altered'
  /** The body hashes right but is not its own canonical (RFC 8785) form. */
  | 'not_canonical'
  /** The body is not JSON, or not a receipt or gc record. */
  | 'entry_invalid'
  /** The row's columns (id, kind, check id, manifest) disagree with its body: status would read it for something it is not. */
  | 'row_mismatch'
  /** prev_hash names no entry of this ledger. */
  | 'link_broken'
  /** prev_hash names another entry of this ledger, not the one before it: entries were moved. */
  | 'reordered'
  /** Positions are missing from the chain and no gc record accounts for them: entries were deleted. */
  | 'gap'
  /** Unsigned where signatures are required (require_signature: true, or --key given). */
  | 'signature_missing'
  /** The signature is malformed or does not verify over the body. */
  | 'signature_invalid'
  /** Signed by a key that is not trusted here. */
  | 'signature_untrusted'
  /** A gc record whose pruned entries do not match what it says it removed (count, seq range, digest). */
  | 'gc_mismatch'
  /** Pruned traces that no gc record accounts for. */
  | 'pruned_orphan'
  /** Nothing recorded: an empty ledger proves nothing. */
  | 'ledger_empty';

export interface AuditFinding {
  /** Position in the chain; null for findings about the ledger as a whole. */
  readonly seq: number | null;
  readonly id: string | null;
  /** 'receipt', 'gc', 'pruned' or 'ledger' (as stored, so an edited kind shows as itself). */
  readonly kind: string;
  readonly code: AuditCode;
  /** One line for people: what differs. */
  readonly detail: string;
}

export interface AuditReport {
  /** Positions walked: live entries plus pruned traces. */
  readonly entries: number;
  readonly receipts: number;
  readonly gcRecords: number;
  readonly pruned: number;
  /** Live entries whose signature verified, by the name of the trusted key. */
  readonly signedBy: Readonly<Record<string, number>>;
  readonly unsigned: number;
  /** The newest position: pin it to notice the newest entries being cut off (see README). */
  readonly head: { readonly seq: number; readonly hash: string } | null;
  readonly findings: readonly AuditFinding[];
}
