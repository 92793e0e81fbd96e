import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';
import type { Spec } from '../spec/model.js';
import { loadSigningKey, type SigningKey } from './keystore.js';

/** Which key a workspace signs with, and what chose it. */
export interface KeySelection {
  readonly name: string;
  readonly source: 'VOUCH_SIGNING_KEY' | 'signing_key';
}

/**
 * VOUCH_SIGNING_KEY (a key name) wins over the spec's `signing_key`: the spec
 * is shared through the repository, while which key a machine holds is that
 * machine's business (a CI runner names its own). Either way the key itself
 * is read from VOUCH_HOME, never from the workspace.
 */
export function selectedKey(env: NodeJS.ProcessEnv, spec: Pick<Spec, 'signingKey'>): KeySelection | undefined {
  const fromEnv = env.VOUCH_SIGNING_KEY;
  if (fromEnv !== undefined && fromEnv !== '') return { name: fromEnv, source: 'VOUCH_SIGNING_KEY' };
  if (spec.signingKey !== null) return { name: spec.signingKey, source: 'signing_key' };
  return undefined;
}

/**
 * The key new ledger entries are signed with: undefined when none is
 * selected (entries are then unsigned), a problem when one is selected but
 * unusable, or when the spec requires signatures and none is selected.
 */
export function signingKeyFor(
  home: string,
  env: NodeJS.ProcessEnv,
  spec: Pick<Spec, 'signingKey' | 'requireSignature' | 'path'>,
  workspaceRoot: string,
): Result<SigningKey | undefined, Problem> {
  const selection = selectedKey(env, spec);
  if (!selection) {
    if (!spec.requireSignature) return ok(undefined);
    return err({
      code: 'signing_key_required',
      message: 'the spec sets require_signature: true but no signing key is selected, so every receipt would count for nothing',
      where: spec.path,
      expected: 'signing_key: NAME in vouch.yaml, or VOUCH_SIGNING_KEY=NAME in the environment',
      hint: 'create a key with `vouch keys generate`, then name it in vouch.yaml (signing_key: default) and `vouch allow`',
    });
  }
  const key = loadSigningKey(home, selection.name, workspaceRoot);
  if (!key.ok) {
    return err({ ...key.error, message: `${key.error.message} (selected by ${selection.source})` });
  }
  return key;
}
