import { digestJson, type Sha256 } from '../core/digest.js';
import { definitionDigest } from '../spec/definition.js';
import { namedChecks } from '../spec/select.js';
import { DEFAULT_TIMEOUT_SECONDS, type CheckDef, type Spec } from '../spec/model.js';
import type { ProofPolicy, ProofSnapshot } from './model.js';
import { scriptPath } from './script.js';

/** The settings of the allowed spec a proof is frozen from. */
export function policyOf(spec: Spec): ProofPolicy {
  return { spec_sha256: spec.sha256, excerpt_bytes: spec.excerptBytes, signing_key: spec.signingKey, require_signature: spec.requireSignature };
}

/**
 * Freezes check proofs: the full definitions of the named checks, as the
 * allowed spec declares them now, and a digest over all of it. Running the
 * card later runs exactly these, whatever vouch.yaml says by then.
 */
export function snapshotChecks(spec: Spec, checks: readonly CheckDef[]): ProofSnapshot {
  const policy = policyOf(spec);
  const frozen = checks.map((check) => ({ ...check }));
  return { kind: 'checks', policy, checks: frozen, digest: digestJson({ v: 1, kind: 'checks', policy, checks: frozen }) };
}

export interface ScriptProofInput {
  readonly card: string;
  readonly name: string;
  readonly scope: readonly string[];
  readonly timeout: number | undefined;
  readonly boundSha256: Sha256 | null;
}

/** Freezes a script proof: which script, what its PASS covers, how long it may run. Its bytes are bound at its first run. */
export function snapshotScript(policy: ProofPolicy, input: ScriptProofInput, path = scriptPath(input.card, input.name)): ProofSnapshot {
  const body = {
    kind: 'script' as const,
    policy,
    name: input.name,
    path,
    scope: [...input.scope],
    timeout: input.timeout ?? DEFAULT_TIMEOUT_SECONDS,
    bound_sha256: input.boundSha256,
  };
  return { ...body, digest: digestJson({ v: 1, ...body }) };
}

/**
 * Whether a snapshot read back from the ledger is still what was frozen: its
 * digest, and each check's definition digest, recomputed. A hash-intact
 * event cannot fail this unless vouch itself wrote it wrong, but a proof is
 * never run on trust.
 */
export function snapshotIntact(proof: ProofSnapshot): boolean {
  if (proof.kind === 'checks') {
    const { digest, ...rest } = proof;
    if (digestJson({ v: 1, ...rest }) !== digest) return false;
    return proof.checks.every((check) => definitionDigest(check) === check.definitionDigest);
  }
  const { digest, ...rest } = proof;
  return digestJson({ v: 1, ...rest }) === digest;
}

/** The check ids a proof names, for people. */
export function proofLabel(proof: ProofSnapshot): string {
  return proof.kind === 'checks' ? proof.checks.map((check) => check.id).join(', ') : `script ${proof.path}`;
}

/** The named checks of the allowed spec, in the order given, duplicates dropped; an unknown id is refused with the known ones. */
export function proofChecks(spec: Spec, ids: readonly string[]): CheckDef[] {
  return namedChecks(spec, ids, { context: "a card's proof names checks of the allowed spec" });
}
