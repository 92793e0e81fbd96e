// What every command needs to find its workspace, checks and ledger,
// without the YAML parser and schema validator: the hot commands (status,
// verify, hooks) load those only when the spec changed (specForRun).
import { existsSync, readFileSync } from 'node:fs';
import { cacheKey } from '../cache/key.js';
import { cachedSpec, rememberSpec } from '../cache/spec-cache.js';
import { sha256 } from '../core/digest.js';
import { fail } from '../core/problem.js';
import { namedChecks } from '../spec/select.js';
import type { EngineContext } from '../engine/context.js';
import { LedgerError, type Ledger } from '../ledger/ledger.js';
import { describeLocation, ledgerLocation, type LedgerLocation } from '../ledger/location.js';
import { openLedgerAt } from '../ledger/open-at.js';
import type { Actor } from '../receipt/receipt.js';
import type { CheckDef, Spec } from '../spec/model.js';
import { findWorkspace, type Workspace } from '../workspace/find.js';
import { vouchHome } from '../workspace/home.js';
import type { Cli } from './io.js';
import { ledgerProblem } from './ledger-problem.js';

/** The workspace this invocation is about: `-C DIR`, else the nearest vouch.yaml upwards. */
export function workspaceOf(cli: Cli): Workspace {
  const found = findWorkspace(cli.dir ?? cli.io.cwd, cli.dir !== undefined);
  return found.ok ? found.value : fail(found.error);
}

export function engineContext(cli: Cli, workspace: Workspace, spec: Spec, actor: Actor = 'cli'): EngineContext {
  return { workspace, spec, home: vouchHome(cli.io.env), actor, env: cli.io.env, ...(cli.io.hashWorker && { hashWorker: cli.io.hashWorker }) };
}

/**
 * Makes the workspace root the working directory for the rest of the
 * command, as git does with its work tree: files are then named to the
 * kernel by shorter, relative paths. Everything vouch keeps is named by
 * absolute path, and the caller's directory stays in `cli.io.cwd` for
 * messages. False when it cannot (a worker thread, a vanished directory).
 */
export function enterWorkspace(workspace: Workspace): boolean {
  try {
    process.chdir(workspace.root);
    return process.cwd() === workspace.root;
  } catch {
    return false;
  }
}

/** The checks named on the command line (all when none), or a usage problem naming the unknown one. */
export function selectChecks(spec: Spec, ids: readonly string[], hint?: string): CheckDef[] {
  return ids.length === 0 ? [...spec.checks] : namedChecks(spec, ids, hint === undefined ? {} : { hint });
}

/** The ledger this invocation uses: VOUCH_LEDGER, else `ledger:` in the spec, else `.vouch/ledger.db`. */
export function ledgerOf(env: NodeJS.ProcessEnv, workspace: Workspace, spec: Spec): LedgerLocation {
  const at = ledgerLocation(env, workspace.stateDir, spec.ledger);
  return at.ok ? at.value : fail(at.error);
}

/** Where the ledger is, for people (a path, or a URL with the password masked). */
export function ledgerName(at: LedgerLocation): string {
  return describeLocation(at);
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

/**
 * The spec, for commands that run or judge checks: answered from the spec
 * cache while vouch.yaml's bytes are unchanged, otherwise parsed and
 * validated in full (and remembered). Errors are those of `specOf`.
 */
export async function specForRun(workspace: Workspace, cli: Cli): Promise<Spec> {
  let bytes: Buffer | undefined;
  try {
    bytes = readFileSync(workspace.specPath);
  } catch {
    bytes = undefined; // specOf reports it.
  }
  // Nothing is cached for a workspace that never recorded anything.
  const home = vouchHome(cli.io.env);
  const key = bytes && existsSync(workspace.stateDir) ? cacheKey(home) : undefined;
  if (bytes && key) {
    const hit = cachedSpec(home, workspace.root, key, workspace.specPath, sha256(bytes));
    if (hit) return hit;
  }
  const { loadSpec } = await import('../spec/load.js');
  const loaded = loadSpec(workspace.specPath, cli.io.cwd);
  if (!loaded.ok) return fail(loaded.error);
  if (key) rememberSpec(home, workspace.root, key, loaded.value);
  return loaded.value;
}
