import { sha256, type Sha256 } from '../core/digest.js';
import type { Reason, Status } from '../core/status.js';
import type { Ledger } from '../ledger/ledger.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import { diffManifests, onlyGroups } from '../scope/manifest.js';
import type { CheckDef } from '../spec/model.js';
import { INPUT_GROUPS, type Fingerprint } from './fingerprint.js';
import { describeChanges } from './verdict.js';

/** Where the verifier keys come from: `verifier_key` in the spec, and the public keys in VOUCH_HOME/keys. */
export interface Verifiers {
  readonly home: string;
  readonly verifierKey: string | null;
}

export interface RemoteJudgement {
  readonly status: Status;
  readonly reason: Reason;
  readonly detail: string | null;
  /** Key id of the verifier, once its signature held. */
  readonly verifier?: string;
  readonly changed?: ReturnType<typeof diffManifests>;
  /** The verdict is the receipt's own, on sources and tests that still match it. */
  readonly fresh?: boolean;
  /** The digest of the sources and tests as they are now. */
  readonly fingerprint?: Sha256;
}

/** Fields of the local copy that must equal the verifier's signed original. */
const BOUND = ['check_id', 'definition_digest', 'spec_sha256', 'manifest_digest', 'fingerprint', 'verdict', 'reason', 'ran', 'exit_code'] as const;

/**
 * A receipt recorded by `vouch verify --remote`, judged now: the verifier's
 * signed original must still verify under a pinned verifier key
 * (`verifier_key` in vouch.yaml, or a key in VOUCH_HOME/keys), the local
 * copy must agree with it, and the sources and tests must still be the ones
 * it verified. Artifacts are not compared: they were built on the verifier.
 * `now` is the check's fingerprint of its sources and tests as they are now.
 */
export async function judgeRemote(
  check: CheckDef,
  receipt: StoredReceipt,
  now: Fingerprint,
  ledger: Ledger | undefined,
  verifiers: Verifiers | undefined,
): Promise<RemoteJudgement> {
  const body = receipt.body;
  const remote = body.remote!;
  if (!verifiers) return { status: 'UNKNOWN', reason: 'signature_untrusted', detail: 'a remote receipt, and no verifier key to check it against here' };
  const [{ verifySignedBody }, { verifierKeyring }] = await Promise.all([import('./remote-binding.js'), import('./verifier-key.js')]);
  const signed = verifySignedBody(remote.body, remote.signature, verifierKeyring(verifiers.home, verifiers.verifierKey));
  if (!signed.ok) {
    return signed.why === 'untrusted'
      ? {
          status: 'UNKNOWN',
          reason: 'signature_untrusted',
          detail: `remote receipt ${signed.detail}: pin it with verifier_key in vouch.yaml or its .pub in VOUCH_HOME/keys`,
        }
      : { status: 'UNKNOWN', reason: 'signature_invalid', detail: `the verifier's signature on the remote receipt does not hold: ${signed.detail}` };
  }
  const original = signed.body;
  const differs = BOUND.find((field) => original[field] !== body[field]);
  if (differs !== undefined || sha256(remote.body) !== remote.receipt_hash || original.id !== remote.receipt_id) {
    return {
      status: 'UNKNOWN',
      reason: 'signature_invalid',
      detail: `the local copy disagrees with the verifier's signed receipt${differs ? ` (${differs})` : ''}`,
    };
  }
  const verifier = signed.keyid;
  if (body.definition_digest !== check.definitionDigest) {
    return { status: 'STALE', reason: 'definition_changed', detail: 'the check definition changed since the remote receipt', verifier };
  }
  const manifest = await ledger?.getManifest(body.manifest_digest);
  if (!manifest)
    return { status: 'UNKNOWN', reason: 'ledger_corrupt', detail: 'the manifest of the remote receipt is missing or damaged in the ledger', verifier };
  const hard = now.problems[0];
  if (hard) return { status: 'UNKNOWN', reason: hard.reason, detail: `${hard.path}: ${hard.detail}`, verifier, fingerprint: now.digest };
  const changed = diffManifests(onlyGroups(manifest, INPUT_GROUPS), now.manifest);
  if (changed.added.length + changed.removed.length + changed.modified.length === 0) {
    return { status: body.verdict, reason: body.reason, detail: body.detail, verifier, fresh: true, fingerprint: now.digest };
  }
  return { status: 'STALE', reason: 'fingerprint_changed', detail: describeChanges(changed), verifier, changed, fingerprint: now.digest };
}
