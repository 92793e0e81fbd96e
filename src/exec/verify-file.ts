import { sha256 } from '../core/digest.js';
import { canonicalize } from '../core/jcs.js';
import { verifyBytes, type PublicKey } from '../crypto/ed25519.js';
import { parseSignatureRecord } from '../crypto/signature.js';
import { EXEC_RECEIPT_TYPE, type ExecReceiptBody } from './receipt.js';

/** What `vouch verify-receipt` can find wrong with an exec receipt file. */
export type ExecFileCode =
  /** Not JSON, or not the shape `vouch exec --receipt` writes. */
  | 'receipt_invalid'
  /** The body's canonical bytes do not hash to the recorded hash: it was edited. */
  | 'hash_mismatch'
  /** No signature: the workspace had no signing_key. */
  | 'unsigned'
  /** The signature names a key other than the ones given. */
  | 'untrusted_key'
  /** The signature does not verify over the body's canonical bytes under the key it names. */
  | 'signature_invalid';

export interface ExecFileFinding {
  readonly code: ExecFileCode;
  readonly detail: string;
}

export interface ExecFileCheck {
  readonly body: ExecReceiptBody | null;
  readonly findings: readonly ExecFileFinding[];
}

/** Whether a file's text is an exec receipt (rather than a bundle of envelopes). */
export function isExecReceiptText(text: string): boolean {
  try {
    const value = JSON.parse(text) as { type?: unknown } | null;
    return typeof value === 'object' && value !== null && value.type === EXEC_RECEIPT_TYPE;
  } catch {
    return false;
  }
}

/**
 * Checks an exec receipt file offline: the body is put in RFC 8785
 * canonical form here (never taken as written), its SHA-256 must be the
 * recorded hash, and the Ed25519 signature must verify over those bytes
 * under one of the given keys.
 */
export function checkExecReceipt(text: string, keys: readonly PublicKey[]): ExecFileCheck {
  let value: { type?: unknown; body?: unknown; hash?: unknown; signature?: unknown };
  try {
    value = JSON.parse(text) as typeof value;
  } catch {
    return { body: null, findings: [{ code: 'receipt_invalid', detail: 'the file is not JSON' }] };
  }
  const body = value.body as ExecReceiptBody | undefined;
  if (value.type !== EXEC_RECEIPT_TYPE || typeof body !== 'object' || body === null || body.kind !== 'exec' || typeof value.hash !== 'string') {
    return {
      body: null,
      findings: [{ code: 'receipt_invalid', detail: `expected {"type": "${EXEC_RECEIPT_TYPE}", "body": {kind: "exec", ...}, "hash", "signature"}` }],
    };
  }
  const canonical = canonicalize(body);
  const findings: ExecFileFinding[] = [];
  if (sha256(canonical) !== value.hash)
    findings.push({ code: 'hash_mismatch', detail: 'the body does not hash to the recorded hash: it was changed after it was recorded' });
  if (value.signature === null || value.signature === undefined) {
    findings.push({ code: 'unsigned', detail: 'the receipt carries no signature (the workspace had no signing_key)' });
    return { body, findings };
  }
  const record = parseSignatureRecord(JSON.stringify(value.signature));
  if (typeof record === 'string') {
    findings.push({ code: 'signature_invalid', detail: record });
    return { body, findings };
  }
  const key = keys.find((candidate) => candidate.keyid === record.keyid);
  if (key === undefined) findings.push({ code: 'untrusted_key', detail: `signed by key ${record.keyid.slice(0, 16)}, not one of the keys given` });
  else if (!verifyBytes(Buffer.from(canonical, 'utf8'), Buffer.from(record.sig, 'base64'), key))
    findings.push({ code: 'signature_invalid', detail: 'the signature does not verify over the canonical body' });
  return { body, findings };
}
