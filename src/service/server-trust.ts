import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSha256, sha256, type Sha256 } from '../core/digest.js';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';
import { parseSpec } from '../spec/load.js';
import type { Spec } from '../spec/model.js';

/**
 * The verifier service's own trust list, under its VOUCH_HOME: the exact
 * specs (by SHA-256) an operator allowed to run on this server. A copy of
 * each allowed spec is kept beside its hash, so the server can check a
 * submission (check ids, time) before it accepts the job, and a worker
 * runs only a tree whose vouch.yaml is byte for byte one of these.
 */
export function serviceTrustDir(home: string): string {
  return join(home, 'service', 'allowed');
}

export function allowServiceSpec(home: string, bytes: Buffer, displayPath: string): Result<Spec, Problem> {
  const parsed = parseSpec(bytes, displayPath);
  if (!parsed.ok) return parsed;
  const dir = serviceTrustDir(home);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `${parsed.value.sha256}.yaml`);
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, bytes, { mode: 0o600 });
    renameSync(temp, path);
  } catch (error) {
    return err({ code: 'trust_store', message: `cannot write the service trust list: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, where: dir });
  }
  return ok(parsed.value);
}

export function denyServiceSpec(home: string, sha: string): boolean {
  if (!isSha256(sha)) return false;
  try {
    rmSync(join(serviceTrustDir(home), `${sha}.yaml`));
    return true;
  } catch {
    return false;
  }
}

/** The allowed spec with this hash, parsed; undefined when it is not allowed here (or its copy no longer matches). */
export function allowedServiceSpec(home: string, sha: string): Spec | undefined {
  if (!isSha256(sha)) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(join(serviceTrustDir(home), `${sha}.yaml`));
  } catch {
    return undefined;
  }
  // A copy edited after it was allowed is not the spec that was allowed.
  if (sha256(bytes) !== sha) return undefined;
  const parsed = parseSpec(bytes, `${sha}.yaml`);
  return parsed.ok ? parsed.value : undefined;
}

export function listServiceSpecs(home: string): Sha256[] {
  try {
    return readdirSync(serviceTrustDir(home))
      .filter((name) => name.endsWith('.yaml'))
      .map((name) => name.slice(0, -5))
      .filter(isSha256)
      .sort();
  } catch {
    return [];
  }
}
