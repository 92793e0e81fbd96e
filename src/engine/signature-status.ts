import { canonicalize } from '../core/jcs.js';
import type { Reason } from '../core/status.js';
import type { Keyring } from '../crypto/keyring.js';

export interface SignatureProblem {
  readonly reason: Extract<Reason, 'signature_missing' | 'signature_invalid' | 'signature_untrusted'>;
  readonly detail: string;
}

/** A signed chain entry as read back: its parsed body (whose canonical form was signed) and its stored signature. */
export interface SignedEntry {
  readonly body: unknown;
  readonly signature: string | null;
}

/** Judges an entry's signature (a receipt's, a dispatch transition's); undefined when it may count (validly signed, or unsigned where that is allowed). */
export type SignatureJudge = (receipt: SignedEntry) => Promise<SignatureProblem | undefined>;

/**
 * A receipt signed by a key this machine does not trust, or with a
 * signature that does not verify, never counts as PASS; neither does an
 * unsigned one where the spec requires signatures. The crypto code and the
 * key store are loaded only when a receipt carries a signature, so unsigned
 * workspaces pay nothing on `status`.
 */
export function signatureJudge(home: string, required: boolean): SignatureJudge {
  let keyring: Keyring | undefined;
  return async (receipt) => {
    if (receipt.signature === null) {
      return required ? { reason: 'signature_missing', detail: 'the receipt is unsigned and vouch.yaml sets require_signature: true' } : undefined;
    }
    const [{ checkSignature }, { homeKeyring }] = await Promise.all([import('../crypto/signature.js'), import('../crypto/keyring.js')]);
    keyring ??= homeKeyring(home);
    // Signed bytes are the canonical body; an intact receipt's body canonicalises to them.
    const check = checkSignature(canonicalize(receipt.body), receipt.signature, keyring);
    switch (check.kind) {
      case 'valid':
        return undefined;
      case 'invalid':
        return { reason: 'signature_invalid', detail: check.detail };
      case 'untrusted':
        return { reason: 'signature_untrusted', detail: `signed by key ${check.keyid.slice(0, 16)}, which is not in VOUCH_HOME/keys` };
    }
  };
}
