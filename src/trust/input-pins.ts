import type { Sha256 } from '../core/digest.js';
import { manifestDigest } from '../scope/manifest.js';
import { scanScopes } from '../scope/scan.js';
import type { ScanResult, ScopeDecl, ScopeRequest } from '../scope/scan-types.js';
import type { Snapshot } from '../scope/snapshot.js';
import type { CheckDef } from '../spec/model.js';

/**
 * The files that decide what a check's command does (its `inputs:`) are the
 * person's choice, like the program it runs: `vouch allow` pins, per check,
 * the digest of every file its inputs match and the set matched. An input
 * that appeared, changed or went away since makes the check UNKNOWN
 * (input_changed) until a person allows again. Only digests are kept.
 *
 * Read through the same scan as the check's own fingerprint (its inputs
 * alone, as a scope of their own): a scope record answers it at status
 * time with one batch of lstat, nothing spawned, nothing re-read.
 */
export interface InputPin {
  /** The check's inputs globs when pinned, sorted: a pin of other globs says nothing about these. */
  readonly globs: readonly string[];
  /** The digest of the inputs-only scan (scope/manifest.ts): equal digests, equal files. */
  readonly digest: Sha256;
  /** Every file matched, to its SHA-256: what the detail of a drift names. */
  readonly files: Readonly<Record<string, Sha256>>;
}

/** A check's inputs as a scope of their own: every glob may match nothing. */
export function inputScope(check: Pick<CheckDef, 'inputs'>): ScopeDecl {
  return { sources: [], tests: [], artifacts: [], inputs: check.inputs, exclude: [], allowMissing: true };
}

export function inputRequest(check: Pick<CheckDef, 'inputs'>): ScopeRequest {
  return { scope: inputScope(check), groups: ['input'] };
}

/** Whether a check has inputs to pin. */
export function hasInputs(check: Pick<CheckDef, 'inputs'>): boolean {
  // A task card's definition, frozen before the field existed, has none at all.
  const inputs: readonly string[] | undefined = check.inputs;
  return inputs !== undefined && inputs.length > 0;
}

/** What `vouch allow` records of a check's inputs, from their scan now. */
export function pinInputs(check: Pick<CheckDef, 'inputs'>, scan: ScanResult): InputPin {
  return {
    globs: [...check.inputs].sort(),
    digest: scan.manifestDigest ?? manifestDigest(scan.manifest),
    files: Object.fromEntries(scan.manifest.files.map(([path, sha256]) => [path, sha256])),
  };
}

/** The pins of every check that declares inputs, as `snapshot` reads them (one walk). */
export async function inputPinsFor(snapshot: Snapshot, checks: readonly CheckDef[]): Promise<Record<string, InputPin>> {
  const pinned = checks.filter(hasInputs);
  const scans = await scanScopes(snapshot, pinned.map(inputRequest));
  return Object.fromEntries(pinned.map((check, i) => [check.id, pinInputs(check, scans[i]!)]));
}

/** One input that is not as pinned. */
export interface InputChange {
  readonly path: string;
  readonly change: 'appeared' | 'changed' | 'went away';
}

/**
 * How a check's inputs differ from its pin: `unpinned` when the pin does
 * not describe these globs (a trust record older than the field, a task
 * card's definition of other inputs): nothing of them was allowed.
 */
export type InputDrift = { readonly kind: 'unpinned' } | { readonly kind: 'changed'; readonly changes: readonly InputChange[] };

/** Null when the inputs are as the person allowed them. */
export function inputDrift(check: Pick<CheckDef, 'inputs'>, pin: InputPin | undefined, scan: ScanResult): InputDrift | null {
  const globs = [...check.inputs].sort();
  if (pin === undefined || pin.globs.length !== globs.length || pin.globs.some((glob, i) => glob !== globs[i])) return { kind: 'unpinned' };
  if ((scan.manifestDigest ?? manifestDigest(scan.manifest)) === pin.digest) return null;
  const changes: InputChange[] = [];
  const now = new Map(scan.manifest.files.map(([path, sha256]) => [path, sha256]));
  for (const [path, sha256] of now) {
    const then = pin.files[path];
    if (then === undefined) changes.push({ path, change: 'appeared' });
    else if (then !== sha256) changes.push({ path, change: 'changed' });
  }
  for (const path of Object.keys(pin.files)) if (!now.has(path)) changes.push({ path, change: 'went away' });
  // Same files, same bytes, yet another digest: what was refused (a link, a FIFO) is not what it was.
  if (changes.length === 0) for (const [path] of scan.manifest.refused) changes.push({ path, change: 'changed' });
  return { kind: 'changed', changes: changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
}

/** The drift in one line, for a receipt or a status: which files, that they decide what runs, and what to do. */
export function inputDetail(checkId: string, drift: InputDrift): string {
  if (drift.kind === 'unpinned')
    return `the inputs of \`${checkId}\` decide what it runs and were not pinned when vouch.yaml was allowed; read them, then \`vouch allow\``;
  const { changes } = drift;
  const named = changes.slice(0, 3).map(({ path, change }) => `${path} (${change})`);
  const shown = named.join(', ') + (changes.length > 3 ? ` and ${changes.length - 3} more` : '');
  return `${changes.length === 0 ? 'its inputs' : shown} ${changes.length === 1 ? 'decides' : 'decide'} what \`${checkId}\` runs and changed since vouch.yaml was allowed; read the change, then \`vouch allow\``;
}
