import { digestJson, type Sha256 } from '../core/digest.js';
import { manifestDigest, type Group, type Manifest } from '../scope/manifest.js';
import { scanScopes, type ScanProblem, type ScanResult } from '../scope/scan.js';
import type { Snapshot } from '../scope/snapshot.js';
import type { CheckDef } from '../spec/model.js';
import { inputRequest } from '../trust/input-pins.js';

/**
 * One check's fingerprint: its definition digest and the manifest of every
 * file in its scope, named by one digest. Two fingerprints are equal exactly
 * when the definition and every covered file's bytes are.
 */
export interface Fingerprint {
  readonly digest: Sha256;
  readonly manifest: Manifest;
  readonly manifestDigest: Sha256;
  readonly problems: readonly ScanProblem[];
}

export const ALL_GROUPS: readonly Group[] = ['input', 'source', 'test', 'artifact'];
/** What a run reads, hashed before and after it: everything but the artifacts it makes. */
export const INPUT_GROUPS: readonly Group[] = ['input', 'source', 'test'];

export function fingerprintDigest(definition: Sha256, manifest: Sha256): Sha256 {
  return digestJson({ v: 1, definition, manifest });
}

/** Fingerprints a check's scope as `snapshot` sees it (one snapshot per moment: before a run, after it, now). */
export async function computeFingerprint(snapshot: Snapshot, check: CheckDef, groups: readonly Group[] = ALL_GROUPS): Promise<Fingerprint> {
  return (await computeFingerprints(snapshot, [{ check, groups }]))[0]!;
}

/** Fingerprints several checks in one walk of the tree (status judges every check at once). */
export async function computeFingerprints(
  snapshot: Snapshot,
  requests: readonly { readonly check: CheckDef; readonly groups: readonly Group[] }[],
): Promise<Fingerprint[]> {
  return (await fingerprintsAndInputs(snapshot, requests, [])).fingerprints;
}

/**
 * Fingerprints, and in the same walk the inputs alone of `pinned` checks
 * (what `vouch allow` pinned them as, trust/input-pins.ts), by check id.
 */
export async function fingerprintsAndInputs(
  snapshot: Snapshot,
  requests: readonly { readonly check: CheckDef; readonly groups: readonly Group[] }[],
  pinned: readonly CheckDef[],
): Promise<{ fingerprints: Fingerprint[]; inputs: Map<string, ScanResult> }> {
  const scans = await scanScopes(snapshot, [...requests.map(({ check, groups }) => ({ scope: check, groups })), ...pinned.map(inputRequest)]);
  return {
    fingerprints: requests.map((request, i) => fingerprintOf(request.check, scans[i]!)),
    inputs: new Map(pinned.map((check, j) => [check.id, scans[requests.length + j]!])),
  };
}

function fingerprintOf(check: CheckDef, scan: ScanResult): Fingerprint {
  const digestOfManifest = scan.manifestDigest ?? manifestDigest(scan.manifest);
  return {
    digest: fingerprintDigest(check.definitionDigest, digestOfManifest),
    // Read only when needed: a remembered scan builds its manifest on demand.
    get manifest() {
      return scan.manifest;
    },
    manifestDigest: digestOfManifest,
    problems: scan.problems,
  };
}
