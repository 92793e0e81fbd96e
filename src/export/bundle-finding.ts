/** What `vouch verify-receipt` can find wrong with one envelope of a bundle. */
export type BundleCode =
  /** The line is not a DSSE envelope of an in-toto statement (not JSON, fields missing, another payload type). */
  | 'envelope_invalid'
  /** No signature on the envelope verifies under the given key(s). */
  | 'signature_invalid'
  /** The payload is not its own canonical (RFC 8785) JSON. */
  | 'not_canonical'
  /** The payload is not an in-toto Statement v1 with a predicate vouch exports. */
  | 'statement_invalid'
  /** --against-workspace: a file named in the statement has other bytes now. */
  | 'file_changed'
  /** --against-workspace: a file named in the statement is gone. */
  | 'file_missing'
  /** --against-workspace: a named file was not read (outside the workspace, credential-shaped, not a regular file, unreadable). */
  | 'file_refused'
  /** --against-workspace: the check's definition in this workspace's vouch.yaml is not the one the receipt ran (or the check is gone). */
  | 'definition_changed'
  /** --require-pass: the receipt's verdict is not PASS. */
  | 'not_pass';

export interface BundleFinding {
  readonly code: BundleCode;
  readonly detail: string;
  /** The file concerned, for the file_* codes. */
  readonly path?: string;
}

/** What a verified statement says, for people and --json. */
export interface StatementSummary {
  readonly predicate: 'link' | 'test-result';
  readonly check: string | null;
  readonly receipt: string | null;
  readonly verdict: string | null;
  /** The digest of the check's definition when it ran. */
  readonly definition: string | null;
  /** Every file the statement names (materials and subjects), by path and SHA-256. */
  readonly files: readonly { readonly name: string; readonly sha256: string }[];
}

export interface EnvelopeCheck {
  /** 1-based line of the bundle. */
  readonly line: number;
  readonly summary: StatementSummary | null;
  readonly findings: readonly BundleFinding[];
}
