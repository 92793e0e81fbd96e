import { fail } from '../core/problem.js';
import { ledgerLocation, type LedgerLocation } from '../ledger/location.js';
import { loadSpec } from '../spec/load.js';
import { findWorkspace } from '../workspace/find.js';
import type { Cli } from './io.js';

export type PgTarget = Extract<LedgerLocation, { kind: 'postgres' }>;

/**
 * The PostgreSQL ledger a server-side command (db, serve, worker) works on,
 * chosen by ledgerLocation (the one order: `--ledger URL`, VOUCH_LEDGER,
 * `ledger:` in the workspace's vouch.yaml), with no SQLite fallback.
 */
export function pgTarget(cli: Cli, flag: string | undefined, command: string): PgTarget {
  // No SQLite fallback (stateDir null): a service without a shared database has nothing to share.
  const chosen = ledgerLocation(cli.io.env, null, () => specLedger(cli), flag);
  if (!chosen) {
    return fail({
      code: 'usage',
      message: `vouch ${command} needs a PostgreSQL ledger and none is named`,
      where: `vouch ${command}`,
      expected: '--ledger postgres://..., VOUCH_LEDGER=postgres://..., or ledger: in vouch.yaml',
      hint: 'for example: vouch db migrate --ledger postgres://vouch@127.0.0.1:5432/vouch',
    });
  }
  if (!chosen.ok) return fail(chosen.error);
  if (chosen.value.kind !== 'postgres') throw new Error('bug: ledgerLocation chose SQLite with no state directory');
  return chosen.value;
}

/** The workspace spec's `ledger:`, when there is a workspace; a spec that does not load is the command's error. */
function specLedger(cli: Cli): string | null {
  const workspace = findWorkspace(cli.dir ?? cli.io.cwd, cli.dir !== undefined);
  if (!workspace.ok) return null;
  const spec = loadSpec(workspace.value.specPath, cli.io.cwd);
  if (!spec.ok) return fail(spec.error);
  return spec.value.ledger;
}
