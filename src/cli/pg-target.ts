import { fail } from '../core/problem.js';
import { postgresLocation, type LedgerLocation } from '../ledger/location.js';
import { loadSpec } from '../spec/load.js';
import { findWorkspace } from '../workspace/find.js';
import type { Cli } from './io.js';

export type PgTarget = Extract<LedgerLocation, { kind: 'postgres' }>;

/**
 * The PostgreSQL ledger a server-side command (db, serve, worker) works on:
 * `--ledger URL`, else VOUCH_LEDGER, else `ledger:` in the workspace's
 * vouch.yaml. These commands have no SQLite fallback: a service without a
 * shared database has nothing to share.
 */
export function pgTarget(cli: Cli, flag: string | undefined, command: string): PgTarget {
  const chosen =
    flag !== undefined
      ? postgresLocation(flag, 'flag')
      : cli.io.env.VOUCH_LEDGER
        ? postgresLocation(cli.io.env.VOUCH_LEDGER, 'VOUCH_LEDGER')
        : fromSpec(cli);
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
  if (chosen.value.kind !== 'postgres') throw new Error('bug: postgresLocation returned another kind');
  return chosen.value;
}

function fromSpec(cli: Cli) {
  const workspace = findWorkspace(cli.dir ?? cli.io.cwd, cli.dir !== undefined);
  if (!workspace.ok) return undefined;
  const spec = loadSpec(workspace.value.specPath, cli.io.cwd);
  if (!spec.ok) return fail(spec.error);
  return spec.value.ledger === null ? undefined : postgresLocation(spec.value.ledger, 'ledger');
}
