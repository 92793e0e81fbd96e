import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Problem } from '../core/problem.js';
import type { Result } from '../core/result.js';
import { explainCoverage } from '../render/coverage.js';
import { coverScopes } from '../scope/coverage.js';
import { Snapshot } from '../scope/snapshot.js';
import { parseSpec, SPEC_FILE } from '../spec/load.js';
import type { Spec } from '../spec/model.js';

/**
 * Writes a proposed spec as ROOT/vouch.yaml: never over an existing file,
 * and never a spec that would start UNKNOWN. Before writing, the spec
 * exactly as parsed is judged by the engine against the files as they are
 * now; detection already dropped every glob that would fail, so this
 * catches a tree that changed since, or a detector that got it wrong.
 */
export async function writeProposedSpec(root: string, text: string): Promise<Result<Spec, Problem>> {
  const path = join(root, SPEC_FILE);
  if (existsSync(path)) {
    return {
      ok: false,
      error: {
        code: 'spec_exists',
        message: `${path} already exists; init --write never overwrites a spec`,
        where: path,
        hint: 'edit it by hand, then `vouch allow`',
      },
    };
  }
  const parsed = parseSpec(Buffer.from(text), path);
  if (!parsed.ok) throw new Error(`bug: init produced an invalid spec: ${parsed.error.message}`);
  const empty = await emptyGroupsProblem(root, parsed.value);
  if (empty) return { ok: false, error: empty };
  try {
    writeFileSync(path, text, { flag: 'wx' });
  } catch (error) {
    return {
      ok: false,
      error: { code: 'write_failed', message: `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, where: path },
    };
  }
  return parsed;
}

/** A problem naming every glob of the spec that covers no file of its own group now; undefined when there is none. */
async function emptyGroupsProblem(root: string, spec: Spec): Promise<Problem | undefined> {
  const coverage = await coverScopes(new Snapshot(root, { readStart: new Date() }), spec.checks);
  const items = spec.checks.flatMap((check, i) =>
    coverage[i]!.warnings.map((warning): Problem => ({ code: 'proposal_scope_empty', where: `check ${check.id}`, message: explainCoverage(warning).message })),
  );
  if (items.length === 0) return undefined;
  return {
    code: 'proposal_scope_empty',
    message: `${spec.path} was not written: ${items.length} of its globs would cover no file of their own`,
    where: spec.path,
    hint: 'run `vouch init` again once the tree has settled, or write the spec by hand and check it with `vouch checks --files`',
    more: items,
  };
}
