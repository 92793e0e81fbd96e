import { readFileSync } from 'node:fs';
import { fail } from '../../core/problem.js';
import { entrySigner } from '../../crypto/entry-signer.js';
import type { Dispatch } from '../../fleet/model.js';
import { notFound, refusalProblem } from '../../fleet/problems.js';
import { Dispatches, type Refusal } from '../../fleet/store.js';
import type { GateContext } from '../../gate/context.js';
import type { AppendOptions, Ledger } from '../../ledger/ledger.js';
import { loadSpec } from '../../spec/load.js';
import type { Spec } from '../../spec/model.js';
import type { Workspace } from '../../workspace/find.js';
import { vouchHome } from '../../workspace/home.js';
import type { Result } from '../../core/result.js';
import { readText, type Cli } from '../io.js';
import { ledgerOf, ledgerOfWorkspace, openLedgerForRead, openLedgerForWrite } from '../session.js';

/** The dispatch named on the command line (id or unique prefix), or a problem that says what is there. */
export async function findDispatch(store: Dispatches, id: string): Promise<Dispatch> {
  const found = await store.find(id);
  if (found.kind === 'found') return found.dispatch;
  if (found.kind === 'ambiguous') return fail({ code: 'dispatch_not_found', message: `"${id}" matches several dispatches: ${found.ids.join(', ')}`, hint: 'give more characters of the id' });
  return fail(notFound(id));
}

/**
 * Runs `work` on the workspace's ledger; a ledger that does not exist yet
 * holds no dispatch. Transitions are judged with this machine's keys, and
 * with the spec's require_signature when there is a valid spec.
 */
export async function withStore<T>(
  cli: Cli,
  workspace: Workspace,
  spec: Spec | null,
  create: boolean,
  id: string | null,
  work: (store: Dispatches, ledger: Ledger) => Promise<T>,
): Promise<T> {
  const at = spec ? ledgerOf(cli.io.env, workspace, spec) : ledgerOfWorkspace(cli.io.env, workspace);
  const ledger = create ? openLedgerForWrite(at) : openLedgerForRead(at);
  if (!ledger) return fail(notFound(id ?? ''));
  try {
    return await work(new Dispatches(ledger, { home: vouchHome(cli.io.env), requireSignature: spec?.requireSignature ?? false }), ledger);
  } finally {
    await ledger.close();
  }
}

/** A command records a transition signed as the workspace signs, or refuses: it never writes unsigned what should be signed. */
export async function signerOf(cli: Cli, workspace: Workspace, spec: Spec): Promise<AppendOptions> {
  const signer = await entrySigner(vouchHome(cli.io.env), cli.io.env, spec, workspace.root);
  return signer.ok ? signer.value : fail(signer.error);
}

export function moved(result: Result<Dispatch, Refusal>): Dispatch {
  return result.ok ? result.value : fail(refusalProblem(result.error));
}

/** The spec when it is valid: reading dispatches needs only its require_signature, and works without one. */
export function specIfValid(workspace: Workspace): Spec | null {
  const loaded = loadSpec(workspace.specPath);
  return loaded.ok ? loaded.value : null;
}

/** The gate's context, for a command that grades: the same engine, run from this process. */
export function gateContextOf(cli: Cli): GateContext {
  return {
    home: vouchHome(cli.io.env),
    env: cli.io.env,
    openLedgerForRead: (workspace) => openLedgerForRead(ledgerOfWorkspace(cli.io.env, workspace)),
    openLedgerForWrite: (workspace) => openLedgerForWrite(ledgerOfWorkspace(cli.io.env, workspace)),
    ...(cli.io.signal && { signal: cli.io.signal }),
    ...(cli.io.hashWorker && { hashWorker: cli.io.hashWorker }),
  };
}

/** A file argument's text; `-` reads stdin. */
export async function readInput(cli: Cli, path: string, flag: string, where: string): Promise<{ text: string; display: string }> {
  if (path === '-') return { text: await readText(cli.io.stdin), display: 'stdin' };
  try {
    return { text: readFileSync(path, 'utf8'), display: path };
  } catch (error) {
    return fail({ code: 'usage', message: `cannot read ${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, where, hint: `give a readable file, or - for stdin` });
  }
}
