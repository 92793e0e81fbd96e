import { existsSync, readFileSync } from 'node:fs';
import { cacheKey } from '../cache/key.js';
import { cachedSpec, rememberSpec } from '../spec/spec-cache.js';
import { sha256 } from '../core/digest.js';
import type { Problem } from '../core/problem.js';
import { err, type Result } from '../core/result.js';
import type { Spec } from '../spec/model.js';
import type { Workspace } from '../workspace/find.js';

/**
 * Reads a workspace's vouch.yaml for an invocation: from the spec cache
 * while its bytes are unchanged (no YAML parser, no schema validator: a
 * third of a hook's start-up), else parsed and validated in full and
 * remembered. Trust is judged elsewhere, on the hash of the bytes read now.
 * `display` is the directory spec errors name paths relative to.
 */
export async function readSpec(workspace: Workspace, home: string, display: string): Promise<Result<Spec, Problem>> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(workspace.specPath);
  } catch (error) {
    return err({
      code: 'spec_unreadable',
      message: `cannot read the spec: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      where: workspace.specPath,
      hint: 'check that the file exists and is readable, or run `vouch init` to create one',
    });
  }
  // Nothing is cached for a workspace that never recorded anything.
  const key = existsSync(workspace.stateDir) ? cacheKey(home) : undefined;
  if (key) {
    const hit = cachedSpec(home, workspace.root, key, workspace.specPath, sha256(bytes));
    if (hit) return { ok: true, value: hit };
  }
  const { parseSpec } = await import('../spec/load.js');
  const parsed = parseSpec(bytes, workspace.specPath, display);
  if (parsed.ok && key) rememberSpec(home, workspace.root, key, parsed.value);
  return parsed;
}
