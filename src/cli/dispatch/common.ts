import { readFileSync } from 'node:fs';
import { fail } from '../../core/problem.js';
import type { Dispatch } from '../../fleet/model.js';
import { notFound, refusalProblem } from '../../fleet/problems.js';
import { Dispatches, type Refusal } from '../../fleet/store.js';
import type { AppendOptions, Ledger } from '../../ledger/ledger.js';
import type { Spec } from '../../spec/model.js';
import type { Workspace } from '../../workspace/find.js';
import type { Result } from '../../core/result.js';
import { readText, type Cli } from '../io.js';

/** The dispatch named on the command line (id or unique prefix), or a problem that says what is there. */
export async function findDispatch(store: Dispatches, id: string): Promise<Dispatch> {
  const found = await store.find(id);
  if (found.kind === 'found') return found.dispatch;
  if (found.kind === 'ambiguous')
    return fail({ code: 'dispatch_not_found', message: `"${id}" matches several dispatches: ${found.ids.join(', ')}`, hint: 'give more characters of the id' });
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
  const ledger = create ? await cli.session.write(workspace) : await cli.session.read(workspace);
  if (!ledger) return fail(notFound(id ?? ''));
  return work(new Dispatches(ledger, { home: cli.session.home, requireSignature: spec?.requireSignature ?? false }), ledger);
}

/** A command records a transition signed as the workspace signs, or refuses: it never writes unsigned what should be signed. */
export async function signerOf(cli: Cli, workspace: Workspace, spec: Spec): Promise<AppendOptions> {
  const signer = await cli.session.signer(workspace, spec);
  return signer.ok ? signer.value : fail(signer.error);
}

export function moved(result: Result<Dispatch, Refusal>): Dispatch {
  return result.ok ? result.value : fail(refusalProblem(result.error));
}

/** A file argument's text; `-` reads stdin. */
export async function readInput(cli: Cli, path: string, flag: string, where: string): Promise<{ text: string; display: string }> {
  if (path === '-') return { text: await readText(cli.io.stdin), display: 'stdin' };
  try {
    return { text: readFileSync(path, 'utf8'), display: path };
  } catch (error) {
    return fail({
      code: 'usage',
      message: `cannot read ${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      where,
      hint: `give a readable file, or - for stdin`,
    });
  }
}
