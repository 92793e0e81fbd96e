import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256, type Sha256 } from '../core/digest.js';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';

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
}

export type TrustState =
  | { readonly kind: 'allowed'; readonly record: TrustRecord }
  | { readonly kind: 'changed'; readonly record: TrustRecord }
  | { readonly kind: 'never' };

function recordPath(home: string, workspaceRoot: string): string {
  return join(home, 'trust', `${sha256(workspaceRoot).slice(0, 32)}.json`);
}

export function trustState(home: string, workspaceRoot: string, specSha: Sha256): Result<TrustState, Problem> {
  const path = recordPath(home, workspaceRoot);
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
  return ok({ kind: record.spec_sha256 === specSha ? 'allowed' : 'changed', record });
}

export function allowSpec(home: string, workspaceRoot: string, specSha: Sha256, now = new Date()): Result<TrustRecord, Problem> {
  const path = recordPath(home, workspaceRoot);
  const record: TrustRecord = { workspace: workspaceRoot, spec_sha256: specSha, allowed_at: now.toISOString() };
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

/** Removes trust; returns whether there was any. */
export function denySpec(home: string, workspaceRoot: string): Result<boolean, Problem> {
  const path = recordPath(home, workspaceRoot);
  try {
    rmSync(path);
    return ok(true);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(false);
    return err(trustProblem(`cannot remove the trust record: ${(error as NodeJS.ErrnoException).code}`, path));
  }
}

function trustProblem(message: string, path: string): Problem {
  return {
    code: 'trust_store',
    message,
    where: path,
    hint: 'check the permissions of VOUCH_HOME (see `vouch --help`)',
  };
}
