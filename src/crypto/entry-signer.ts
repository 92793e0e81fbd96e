import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';
import type { AppendOptions } from '../ledger/ledger.js';
import type { Spec } from '../spec/model.js';

/**
 * How a new chain entry (a gate decision, a dispatch transition) is signed:
 * like a receipt, with the key the workspace signs with, so a forged
 * "allow" or "verified" is as detectable as a forged PASS. No key selected:
 * unsigned. A selected key that cannot be used is a problem; the caller
 * decides whether to refuse (a command) or record unsigned (a hook, where
 * `vouch audit` then reports it). The crypto code loads only when a key is
 * selected.
 */
export async function entrySigner(home: string, env: NodeJS.ProcessEnv, spec: Spec | null, workspaceRoot: string): Promise<Result<AppendOptions, Problem>> {
  if (!spec) return ok({});
  const { signingKeyFor } = await import('./select.js');
  const key = signingKeyFor(home, env, spec, workspaceRoot);
  if (!key.ok) return err(key.error);
  if (!key.value) return ok({});
  const { signerFor } = await import('./signature.js');
  return ok({ sign: signerFor(key.value) });
}
