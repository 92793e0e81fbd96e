import type { DispatchNote } from '../gate/decision.js';
import type { Ledger } from '../ledger/ledger.js';
import { dispatchLabel } from './label.js';
import { Dispatches, type DispatchesOptions } from './store.js';

/**
 * The dispatches a session ordered that are not terminated, for its Stop
 * gate. One still `dispatched`, or whose agent the client says is running,
 * is a legitimately running agent: listed, never blocking. Any other
 * (reported and never graded or closed, verified and never closed,
 * contradicted with its agent gone, a damaged record) is half-closed: work
 * that can go missing, so the session may not stop on it.
 */
export async function openDispatches(ledger: Ledger, session: string, runningAgents: ReadonlySet<string>, trust: DispatchesOptions): Promise<DispatchNote[]> {
  const open = await new Dispatches(ledger, trust).open();
  return open
    .filter((d) => d.order?.session === session)
    .map((d) => {
      const agent = d.order?.agent?.id ?? null;
      const running = d.state !== 'damaged' && (d.lastState === 'dispatched' || (agent !== null && runningAgents.has(agent)));
      return { id: d.id, state: d.state, verdict: d.verdict, tier: d.order?.tier ?? null, label: dispatchLabel(d), running };
    });
}
