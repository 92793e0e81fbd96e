import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, type Sha256 } from '../core/digest.js';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';
import type { Pins } from './pins.js';

/**
 * Trust: a spec runs only after a person allowed its exact SHA-256 for this
 * workspace, like `direnv allow`. The record lives under VOUCH_HOME, never in
 * the workspace, one small file per workspace so concurrent workspaces never
 * contend for one file.
 */
export interface TrustRecord {
  readonly workspace: string;
  readonly spec_sha256: Sha256;
  readonly allowed_at: string;
  /**
   * What the person allowed to run (see pins.ts). Absent from records an
   * earlier vouch wrote: those read as `outdated` until allowed again.
   */
  readonly pins?: Pins;
  /** Set by `vouch deny`: trust was withdrawn then (kept so that status can say so). */
  readonly denied_at?: string;
}

export type TrustState =
  | { readonly kind: 'allowed'; readonly record: TrustRecord & { readonly pins: Pins } }
  | { readonly kind: 'changed'; readonly record: TrustRecord }
  /** Withdrawn by `vouch deny`. */
  | { readonly kind: 'denied'; readonly record: TrustRecord }
  /** Allowed by an earlier vouch that pinned no executables: allowed again before anything runs. */
  | { readonly kind: 'outdated'; readonly record: TrustRecord }
  | { readonly kind: 'never' };

/** Why a spec is not allowed, in words, for every front end. */
export function notAllowedWords(kind: Exclude<TrustState['kind'], 'allowed'>): string {
  switch (kind) {
    case 'changed':
      return 'vouch.yaml changed since it was allowed';
    case 'denied':
      return 'vouch.yaml was denied (`vouch deny`) in this workspace';
    case 'outdated':
      return 'vouch.yaml was allowed by an earlier vouch that did not pin what runs; allow it again';
    case 'never':
      return 'vouch.yaml was never allowed in this workspace';
  }
}

/** Where a workspace's trust record lives under VOUCH_HOME (the gate watches it: see guard/wiring.ts). */
export function trustRecordPath(home: string, workspaceRoot: string): string {
  return join(home, 'trust', `${sha256(workspaceRoot).slice(0, 32)}.json`);
}

export function trustState(home: string, workspaceRoot: string, specSha: Sha256): Result<TrustState, Problem> {
  const path = trustRecordPath(home, workspaceRoot);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok({ kind: 'never' });
    return err(trustProblem(`cannot read the trust record: ${(error as NodeJS.ErrnoException).code}`, path));
  }
  let record: TrustRecord;
  try {
    record = JSON.parse(text) as TrustRecord;
  } catch {
    return err(trustProblem('the trust record is not valid JSON', path));
  }
  // A record for another path (hash prefix collision, or a copied file) is no trust at all.
  if (record.workspace !== workspaceRoot) return ok({ kind: 'never' });
  if (record.denied_at !== undefined) return ok({ kind: 'denied', record });
  if (record.spec_sha256 !== specSha) return ok({ kind: 'changed', record });
  if (record.pins === undefined) return ok({ kind: 'outdated', record });
  return ok({ kind: 'allowed', record: { ...record, pins: record.pins } });
}

/**
 * The pins of the workspace's current trust, whatever spec they were taken
 * for (a task card runs definitions frozen from an earlier allowed spec):
 * undefined when nothing is allowed or the record predates pins.
 */
export function currentPins(home: string, workspaceRoot: string): Pins | undefined {
  try {
    const record = JSON.parse(readFileSync(trustRecordPath(home, workspaceRoot), 'utf8')) as TrustRecord;
    return record.workspace === workspaceRoot && record.denied_at === undefined ? record.pins : undefined;
  } catch {
    return undefined;
  }
}

/** Trusts these exact spec bytes, with what its checks resolve to now (`pins`, see pins.ts). */
export function allowSpec(home: string, workspaceRoot: string, specSha: Sha256, pins: Pins, now = new Date()): Result<TrustRecord, Problem> {
  return writeRecord(home, workspaceRoot, { workspace: workspaceRoot, spec_sha256: specSha, allowed_at: now.toISOString(), pins });
}

/** Withdraws trust, keeping the record marked denied; returns whether anything was allowed. */
export function denySpec(home: string, workspaceRoot: string, now = new Date()): Result<boolean, Problem> {
  const path = trustRecordPath(home, workspaceRoot);
  let before: TrustRecord | undefined;
  try {
    before = JSON.parse(readFileSync(path, 'utf8')) as TrustRecord;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && !(error instanceof SyntaxError)) {
      return err(trustProblem(`cannot read the trust record: ${(error as NodeJS.ErrnoException).code}`, path));
    }
  }
  const wasAllowed = before !== undefined && before.workspace === workspaceRoot && before.denied_at === undefined;
  const { pins: _pins, ...kept } =
    before && before.workspace === workspaceRoot ? before : { workspace: workspaceRoot, spec_sha256: '' as Sha256, allowed_at: '' };
  const written = writeRecord(home, workspaceRoot, { ...kept, denied_at: now.toISOString() });
  return written.ok ? ok(wasAllowed) : written;
}

function writeRecord(home: string, workspaceRoot: string, record: TrustRecord): Result<TrustRecord, Problem> {
  const path = trustRecordPath(home, workspaceRoot);
  try {
    mkdirSync(join(home, 'trust'), { recursive: true, mode: 0o700 });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
    renameSync(temp, path);
  } catch (error) {
    return err(trustProblem(`cannot write the trust record: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, path));
  }
  return ok(record);
}

function trustProblem(message: string, path: string): Problem {
  return {
    code: 'trust_store',
    message,
    where: path,
    hint: 'check the permissions of VOUCH_HOME (see `vouch --help`)',
  };
}
