import { digestJson } from '../core/digest.js';
import type { Dispatch } from '../fleet/model.js';
import type { GateContext, StopRequest } from '../gate/context.js';
import type { DispatchNote } from '../gate/decision.js';
import type { Verdict } from '../gate/grade.js';
import type { Spec } from '../spec/model.js';
import type { Workspace } from '../workspace/find.js';
import { signerFor } from './settle.js';

/** The session may not stop while a dispatch it ordered is half-closed; running ones are only listed. */
export function holdOnUnsettled(verdict: Verdict, open: readonly DispatchNote[]): Verdict {
  const unsettled = open.filter((d) => !d.running);
  if (verdict.kind === 'block' || unsettled.length === 0) return verdict;
  const ids = unsettled.map((d) => `${d.id} ${d.state}`).join(', ');
  return {
    kind: 'block',
    reason: 'dispatches_unsettled',
    findings: [],
    detail: ids,
    tree: digestJson({ verdict: verdict.tree, unsettled: unsettled.map((d) => [d.id, d.state]) }),
  };
}

/**
 * A stopping subagent's open dispatch; with `create`, one is put on the
 * ledger now when no SubagentStart recorded it (its pin is the spec at its
 * stop). The dispatch engine loads only for a subagent's stop.
 */
export async function dispatchAtStop(
  request: StopRequest,
  ctx: GateContext,
  workspace: Workspace,
  spec: Spec | null,
  create: boolean,
): Promise<Dispatch | null> {
  const { openDispatchOf, putSubagentOnRecord } = await import('../fleet/subagent.js');
  const { Dispatches } = await import('../fleet/store.js');
  const ledger = create ? await ctx.ledgers.write(workspace) : await ctx.ledgers.read(workspace);
  if (!ledger) return null;
  const trust = { home: ctx.home, requireSignature: spec?.requireSignature ?? false, ...(ctx.now && { now: ctx.now }) };
  if (!create) return (await openDispatchOf(new Dispatches(ledger, trust), request.session, request.agentId!)) ?? null;
  const agent = { client: request.client, session: request.session, agentId: request.agentId!, agentType: request.agentType };
  const why = 'no SubagentStart was recorded for this subagent: put on the ledger at its stop (its spec pin is the spec at its stop)';
  return putSubagentOnRecord(ledger, workspace, spec, agent, why, await signerFor(ctx, workspace, spec), trust);
}

/** The dispatches the session ordered that are not terminated. */
export async function sessionDispatches(ctx: GateContext, workspace: Workspace, request: StopRequest, spec: Spec): Promise<DispatchNote[]> {
  const ledger = await ctx.ledgers.read(workspace);
  if (!ledger) return [];
  const { openDispatches } = await import('../fleet/sweep.js');
  return openDispatches(ledger, request.session, new Set(request.runningAgents), { home: ctx.home, requireSignature: spec.requireSignature });
}

export function note(dispatch: Dispatch): DispatchNote {
  return {
    id: dispatch.id,
    state: dispatch.state,
    verdict: dispatch.verdict,
    tier: dispatch.order?.tier ?? null,
    label: dispatch.order?.agent ? `${dispatch.order.agent.type ?? 'subagent'} ${dispatch.order.agent.id}` : dispatch.id,
    running: dispatch.state === 'dispatched',
  };
}
