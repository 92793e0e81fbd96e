import { fail, type Problem } from '../core/problem.js';
import type { EngineContext } from '../engine/context.js';
import { LedgerError, type Ledger } from '../ledger/ledger.js';
import { describeLocation, ledgerLocation, type LedgerLocation } from '../ledger/location.js';
import { openLedgerAt } from '../ledger/open.js';
import type { Actor } from '../receipt/receipt.js';
import { loadSpec } from '../spec/load.js';
import type { CheckDef, Spec } from '../spec/model.js';
import { findWorkspace, type Workspace } from '../workspace/find.js';
import { vouchHome } from '../workspace/home.js';
import { closest } from '../core/suggest.js';
import type { Cli } from './io.js';

/** The workspace this invocation is about: `-C DIR`, else the nearest vouch.yaml upwards. */
export function workspaceOf(cli: Cli): Workspace {
  const found = findWorkspace(cli.dir ?? cli.io.cwd, cli.dir !== undefined);
  return found.ok ? found.value : fail(found.error);
}

export function specOf(workspace: Workspace, cli: Cli): Spec {
  const loaded = loadSpec(workspace.specPath, cli.io.cwd);
  return loaded.ok ? loaded.value : fail(loaded.error);
}

export function engineContext(cli: Cli, workspace: Workspace, spec: Spec, actor: Actor = 'cli'): EngineContext {
  return { workspace, spec, home: vouchHome(cli.io.env), actor, env: cli.io.env };
}

/** The checks named on the command line (all when none), or a usage problem naming the unknown one. */
export function selectChecks(spec: Spec, ids: readonly string[], hint = 'run `vouch checks` to list them'): CheckDef[] {
  if (ids.length === 0) return [...spec.checks];
  const known = spec.checks.map((check) => check.id);
  return [...new Set(ids)].map((id) => {
    const check = spec.checks.find((c) => c.id === id);
    if (check) return check;
    const guess = closest(id, known);
    return fail({
      code: 'check_not_found',
      message: `no check "${id}" in vouch.yaml${guess ? ` (did you mean "${guess}"?)` : ''}`,
      expected: `one of: ${known.join(', ')}`,
      found: id,
      hint,
    });
  });
}

/** The ledger this invocation uses: VOUCH_LEDGER, else `ledger:` in the spec, else `.vouch/ledger.db`. */
export function ledgerOf(env: NodeJS.ProcessEnv, workspace: Workspace, spec: Spec): LedgerLocation {
  const at = ledgerLocation(env, workspace.stateDir, spec.ledger);
  return at.ok ? at.value : fail(at.error);
}

/**
 * The ledger, for commands that read receipts by id and need no valid spec
 * (`show`): the spec's `ledger:` counts when the spec loads.
 */
export function ledgerOfWorkspace(env: NodeJS.ProcessEnv, workspace: Workspace): LedgerLocation {
  const loaded = env.VOUCH_LEDGER ? undefined : loadSpec(workspace.specPath);
  const at = ledgerLocation(env, workspace.stateDir, loaded?.ok ? loaded.value.ledger : null);
  return at.ok ? at.value : fail(at.error);
}

/** Where the ledger is, for people (a path, or a URL with the password masked). */
export function ledgerName(at: LedgerLocation): string {
  return describeLocation(at);
}

export function ledgerProblem(error: LedgerError): Problem {
  switch (error.kind) {
    case 'corrupt':
      return {
        code: 'ledger_corrupt',
        message: `the ledger is corrupt: ${error.message}; no status can be given from it`,
        where: error.path,
        hint: 'move the file aside to keep it for inspection; vouch starts a new ledger on the next verify',
      };
    case 'unreadable':
      return { code: 'ledger_unreadable', message: error.message, where: error.path, hint: 'check the permissions of .vouch/ and that the disk is not full' };
    case 'too_new':
      return { code: 'ledger_too_new', message: error.message, where: error.path, hint: 'upgrade vouch' };
    case 'schema_behind':
      return {
        code: 'ledger_schema_behind',
        message: `the PostgreSQL ledger is not ready: ${error.message}`,
        where: error.path,
        hint: 'an operator runs `vouch db migrate` (with the same VOUCH_LEDGER or ledger:) once per schema and after each vouch upgrade',
      };
  }
}

function guarded<T>(open: () => T): T {
  try {
    return open();
  } catch (error) {
    if (error instanceof LedgerError) return fail(ledgerProblem(error));
    throw error;
  }
}

/** Opens (creating an SQLite file if needed) the ledger to append to. A PostgreSQL ledger connects on first use. */
export function openLedgerForWrite(at: LedgerLocation): Ledger {
  return guarded(() => openLedgerAt(at, true)!);
}

/** Opens the ledger to read; undefined when an SQLite ledger was never created (nothing recorded yet). */
export function openLedgerForRead(at: LedgerLocation): Ledger | undefined {
  return guarded(() => openLedgerAt(at, false));
}
