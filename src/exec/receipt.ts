import type { Sha256 } from '../core/digest.js';
import { canonicalize } from '../core/jcs.js';
import type { SignatureRecord } from '../crypto/signature.js';
import type { StoredEvent, SubjectEventBody } from '../ledger/events.js';
import type { ExecPolicy } from '../spec/model.js';
import type { ExecFinding } from './precheck.js';
import type { FileWritten } from './written.js';

/** What the exec receipt file says it is: the first thing a verifier checks. */
export const EXEC_RECEIPT_TYPE = 'vouch.exec-receipt/v1';

export type ExecDecision = 'ALLOWED' | 'BLOCKED';

/**
 * One command `vouch exec` ran or refused, as a chain entry (kind `exec`,
 * its own subject): hashed, linked and signed like every entry, over its
 * RFC 8785 canonical bytes. It binds the command itself (argv and the line
 * the shell reader read), where it ran, the policy (its digest and its
 * fields), the decision and why, and what came of it.
 */
export interface ExecReceiptBody extends SubjectEventBody {
  readonly kind: 'exec';
  readonly event: 'allowed' | 'blocked';
  readonly decision: ExecDecision;
  readonly argv: readonly string[];
  /** The argv as one shell line: what the shell reader read. */
  readonly command: string;
  /** Absolute. */
  readonly cwd: string;
  readonly workspace: string;
  readonly policy: {
    readonly digest: Sha256;
    readonly network: boolean;
    readonly writable: readonly string[];
    readonly deny: readonly string[];
    readonly timeout: number;
    readonly mode: ExecPolicy['mode'];
  };
  /** What the policy does not let the command do: before the run (the line) and after it (a path that vouches made). */
  readonly findings: readonly ExecFinding[];
  /** Null when the command did not run (BLOCKED before it). */
  readonly exit_code: number | null;
  readonly timed_out: boolean;
  readonly duration_ms: number | null;
  readonly stdout_sha256: Sha256 | null;
  readonly stdout_bytes: number | null;
  readonly stderr_sha256: Sha256 | null;
  readonly stderr_bytes: number | null;
  /** Files the command wrote under its writable paths; null when it did not run, or the paths hold too many entries to walk. */
  readonly files_written: readonly FileWritten[] | null;
  readonly sandbox: { readonly kind: 'bubblewrap'; readonly network: boolean };
  /** The agent client whose run this was (its marker), or null. */
  readonly agent: string | null;
  readonly vouch: string;
}

/** The receipt as a file anyone can check: the stored body (prev_hash included), its hash, and the signature over its canonical bytes. */
export interface ExecReceiptFile {
  readonly type: typeof EXEC_RECEIPT_TYPE;
  readonly body: ExecReceiptBody & { readonly prev_hash: Sha256 | null };
  readonly hash: Sha256;
  readonly signature: SignatureRecord | null;
}

/** The file form of an exec entry as read back from the ledger (its body as stored, prev_hash included). */
export function receiptFile(stored: StoredEvent<ExecReceiptBody & { readonly prev_hash: Sha256 | null }>): ExecReceiptFile {
  const signature = stored.signature === null ? null : (JSON.parse(stored.signature) as SignatureRecord);
  return { type: EXEC_RECEIPT_TYPE, body: stored.body, hash: stored.hash, signature };
}

/** The file's text: canonical JSON and a newline. */
export function receiptFileText(file: ExecReceiptFile): string {
  return `${canonicalize(file)}\n`;
}
