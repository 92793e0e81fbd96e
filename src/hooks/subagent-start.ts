import { entrySigner } from '../crypto/entry-signer.js';
import { putSubagentOnRecord } from '../fleet/subagent.js';
import type { Client } from '../clients/registry.js';
import { locateForHook } from '../gate/locate.js';
import type { HookContext } from './context.js';

/**
 * SubagentStart: puts the subagent on the ledger as a dispatch before it
 * does any work, pinning the spec in force. The event cannot block, so a
 * failure is said (stderr) and let go: the subagent is put on record at its
 * stop instead. Outside a workspace with a vouch.yaml nothing is recorded.
 * Returns a notice for stderr, or null.
 */
export async function recordSubagentStart(
  client: Client,
  agent: { readonly session: string; readonly agentId: string; readonly agentType: string | null; readonly cwd: string },
  ctx: HookContext,
): Promise<string | null> {
  const place = locateForHook(agent.cwd);
  if (place.kind !== 'spec') return null;
  try {
    const loaded = await ctx.specs.load(place.workspace);
    const spec = loaded.ok ? loaded.value : null;
    const signer = await entrySigner(ctx.home, ctx.env, spec, place.workspace.root);
    const ledger = await ctx.ledgers.write(place.workspace);
    const why = spec
      ? 'SubagentStart: the subagent was spawned'
      : 'SubagentStart: the subagent was spawned while vouch.yaml is not valid, so no spec is pinned';
    const trust = { home: ctx.home, requireSignature: spec?.requireSignature ?? false, ...(ctx.now && { now: ctx.now }) };
    await putSubagentOnRecord(ledger, place.workspace, spec, { client, ...agent }, why, signer.ok ? signer.value : {}, trust);
    return null;
  } catch (error) {
    return `vouch: subagent ${agent.agentId} could not be put on the ledger now (it will be at its stop): ${error instanceof Error ? error.message : String(error)}`;
  }
}
