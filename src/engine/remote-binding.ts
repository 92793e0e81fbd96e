import { canonicalize } from '../core/jcs.js';
import { sha256 } from '../core/digest.js';
import type { Keyring } from '../crypto/keyring.js';
import { checkSignature } from '../crypto/signature.js';
import { fingerprintDigest, INPUT_GROUPS } from './fingerprint.js';
import type { ReceiptBody } from '../receipt/receipt.js';
import { manifestDigest, onlyGroups, type Manifest } from '../scope/manifest.js';
import type { CheckDef } from '../spec/model.js';

export type SignedBody =
  | { readonly ok: true; readonly body: ReceiptBody; readonly keyid: string; readonly keyName: string }
  | { readonly ok: false; readonly why: 'invalid' | 'untrusted'; readonly detail: string };

/**
 * A verifier's receipt body: its exact canonical text must carry a
 * signature that verifies under a pinned key. Nothing in it is read before
 * the signature holds.
 */
export function verifySignedBody(text: string, signature: string | null, keyring: Keyring): SignedBody {
  if (signature === null) return { ok: false, why: 'invalid', detail: 'the receipt is unsigned' };
  const check = checkSignature(text, signature, keyring);
  if (check.kind === 'untrusted')
    return { ok: false, why: 'untrusted', detail: `signed by key ${check.keyid.slice(0, 16)}, which is not the pinned verifier key` };
  if (check.kind === 'invalid') return { ok: false, why: 'invalid', detail: check.detail };
  let body: ReceiptBody;
  try {
    body = JSON.parse(text) as ReceiptBody;
  } catch {
    return { ok: false, why: 'invalid', detail: 'the signed body is not JSON' };
  }
  if (canonicalize(body) !== text) return { ok: false, why: 'invalid', detail: 'the signed body is not in canonical form' };
  if (body.kind !== 'receipt' || body.v !== 1) return { ok: false, why: 'invalid', detail: 'the signed body is not a vouch receipt' };
  return { ok: true, body, keyid: check.keyid, keyName: check.keyName };
}

export interface Expected {
  readonly specSha256: string;
  readonly check: CheckDef;
  readonly job: string;
  /** The fresh nonce this client sent with the job. */
  readonly nonce: string;
}

/**
 * Whether a verified remote receipt is evidence about *these* files under
 * *this* spec: the spec hash, the check's definition, the job it answers
 * and the nonce this client sent with it,
 * the fingerprint over that definition and the manifest it names, the
 * manifest given beside it (it must hash to that name), and the sources and
 * tests in it equal, path by path and hash by hash, to the local ones.
 * Returns why not, or undefined when it binds.
 */
export function bindsTo(body: ReceiptBody, expected: Expected, manifest: Manifest | null, localInputs: Manifest): string | undefined {
  if (body.spec_sha256 !== expected.specSha256)
    return `the receipt is for spec ${body.spec_sha256.slice(0, 12)}, not this vouch.yaml (${expected.specSha256.slice(0, 12)})`;
  if (body.check_id !== expected.check.id) return `the receipt is for check "${body.check_id}", not "${expected.check.id}"`;
  if (body.definition_digest !== expected.check.definitionDigest) return `the receipt is for another definition of check "${expected.check.id}"`;
  if (body.service?.job !== expected.job) return `the receipt answers job ${String(body.service?.job)}, not ${expected.job}`;
  // The server names the job; only the nonce, fresh from this client, shows the receipt was made for this submission.
  if (body.service.nonce !== expected.nonce) {
    return `the receipt does not carry the nonce this client sent with job ${expected.job} (${body.service.nonce === undefined ? 'it has none' : 'it has another'}): a receipt replayed from an earlier job is never accepted`;
  }
  if (body.fingerprint !== fingerprintDigest(body.definition_digest, body.manifest_digest))
    return 'the fingerprint does not bind the definition to the manifest';
  if (!manifest) return 'the server sent no manifest for the receipt';
  if (manifestDigest(manifest) !== body.manifest_digest) return 'the manifest sent does not hash to the manifest_digest the receipt signs';
  return sameInputs(manifest, localInputs);
}

/** The sources and tests of a remote manifest against the local ones: undefined when equal, else the first difference. */
export function sameInputs(remote: Manifest, local: Manifest): string | undefined {
  const theirs = onlyGroups(remote, INPUT_GROUPS).files;
  const ours = local.files;
  if (canonicalize(theirs) === canonicalize(ours)) return undefined;
  const remoteByPath = new Map(theirs.map((file) => [file[0], file]));
  for (const file of ours) {
    const other = remoteByPath.get(file[0]);
    if (!other) return `${file[0]} is here but not in the verified tree`;
    if (other[1] !== file[1]) return `${file[0]} differs from the verified tree`;
    remoteByPath.delete(file[0]);
  }
  const extra = [...remoteByPath.keys()][0];
  return extra ? `${extra} is in the verified tree but not here` : 'the file lists differ';
}

/** SHA-256 of a remote body's text: its hash in the verifier's chain. */
export function bodyHash(text: string): string {
  return sha256(text);
}
