import { engineContext } from '../engine/context.js';
import { verifyChecks } from '../engine/verify.js';
import { workspaceAt } from '../workspace/find.js';
import { gateReuse } from './reuse-accept.js';
import { clearMarker, type BackgroundOrder } from './background.js';
import type { GateContext } from './context.js';

/** How a background run ended, for the runner's log (the receipts are the evidence). */
export type BackgroundEnd = 'ran' | 'bad_order' | 'spec_changed' | 'not_allowed' | 'trust_error';

/**
 * The runner's side of a background run (see background.ts): runs the
 * ordered checks through the engine with the gate's stamp, as the stop that
 * started it would have, and clears each check's marker once its receipt is
 * in the ledger. Runs nothing unless the spec is still the bytes the gate
 * graded under and still allowed; a file changed while it ran makes the
 * receipt UNKNOWN (changed_during_run), as in any run.
 */
export async function runBackgroundOrder(ctx: GateContext, text: string): Promise<BackgroundEnd> {
  const order = parseOrder(text);
  if (order === null) return 'bad_order';
  const clearAll = () => order.checks.forEach((check) => clearMarker(ctx.home, order.root, check, process.pid));
  try {
    const workspace = workspaceAt(order.root);
    const loaded = await ctx.specs.load(workspace);
    if (!loaded.ok || loaded.value.sha256 !== order.spec_sha256) return 'spec_changed';
    const spec = loaded.value;
    const checks = spec.checks.filter((check) => order.checks.includes(check.id));
    const engine = engineContext(ctx, workspace, spec, 'hook', { gate: { session: order.session, client: order.client, event: order.event } });
    const ledger = await ctx.ledgers.write(workspace);
    const result = await verifyChecks(engine, checks, {
      openLedger: () => Promise.resolve(ledger),
      // A state a stop already proved is not run again: the receipt names that PASS.
      reuse: gateReuse(ctx.home, order.root, ledger),
      ...(ctx.signal && { signal: ctx.signal }),
      onEvent: (event) => {
        if (event.kind === 'check_finished') clearMarker(ctx.home, order.root, event.check.id, process.pid);
      },
    });
    return result.kind;
  } finally {
    clearAll();
  }
}

function parseOrder(text: string): BackgroundOrder | null {
  try {
    const value = JSON.parse(text) as Partial<BackgroundOrder>;
    const ok =
      value.v === 1 &&
      typeof value.root === 'string' &&
      typeof value.spec_sha256 === 'string' &&
      typeof value.client === 'string' &&
      typeof value.session === 'string' &&
      typeof value.event === 'string' &&
      Array.isArray(value.checks) &&
      value.checks.every((c) => typeof c === 'string');
    return ok ? (value as BackgroundOrder) : null;
  } catch {
    return null;
  }
}
