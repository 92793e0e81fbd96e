import { sha256 } from '../core/digest.js';
import { nowOf } from '../core/context.js';
import { newId } from '../core/ids.js';
import { entrySigner } from '../crypto/entry-signer.js';
import type { GateContext, StopRequest } from '../gate/context.js';
import type { DispatchNote, GateDecision, GateReason } from '../gate/decision.js';
import { CLAIM_CHARS, type GateBody } from '../ledger/session-entries.js';
import type { Verdict } from '../gate/grade.js';
import type { SessionHistory, StopScope } from '../gate/history.js';
import { LedgerError, type AppendOptions } from '../ledger/ledger.js';
import { redact } from '../runner/redact.js';
import { DEFAULT_GATE, type Spec } from '../spec/model.js';
import type { Workspace } from '../workspace/find.js';

/** A stop's dispatches: those the session ordered (Stop), or the subagent's own (SubagentStop). */
export interface Dispatched {
  readonly open: readonly DispatchNote[];
  readonly own: DispatchNote | null;
}

/** One stop being judged in one workspace: what the client asked, the gate's context, the workspace and the session's history there. */
export interface StopAt {
  readonly request: StopRequest;
  readonly ctx: GateContext;
  readonly workspace: Workspace;
  readonly history: SessionHistory;
}

export const NONE: Dispatched = { open: [], own: null };

export function scopeOf(request: StopRequest): StopScope {
  return { event: request.event, agentId: request.event === 'SubagentStop' ? request.agentId : null };
}

/**
 * Applies the escape rule to a verdict and records the decision. A block
 * that follows max_blocks blocks on the same files is let through as
 * escaped; a decision that cannot be recorded is a block (nothing is let
 * through unrecorded).
 */
export async function settle(at: StopAt, spec: Spec | null, verdict: Verdict, dispatched: Dispatched): Promise<GateDecision> {
  const { request, ctx, workspace, history } = at;
  const recorded = dispatched.own ? [dispatched.own] : dispatched.open;
  const policy = spec?.gate ?? DEFAULT_GATE;
  const prior = verdict.kind === 'block' ? history.consecutiveBlocks(scopeOf(request), verdict.tree) : 0;
  // A stop held only while the gate's own run goes on never escapes: the run ends (its timeout), and its result decides.
  const kind = verdict.kind === 'block' && verdict.reason !== 'checks_running' && prior >= policy.maxBlocks ? 'escaped' : verdict.kind;
  const blocks = verdict.kind === 'block' ? prior + 1 : 0;
  const now = nowOf(ctx);
  const body: GateBody = {
    v: 1,
    kind: 'gate',
    id: newId(now.getTime()),
    at: now.toISOString(),
    session: request.session,
    client: request.client,
    event: request.event,
    agent_id: request.agentId,
    decision: kind,
    reason: kind === 'escaped' ? 'max_blocks' : verdict.reason,
    spec_sha256: spec?.sha256 ?? null,
    on_stop: spec?.gate.onStop ?? null,
    checks: verdict.findings.map((f) => ({ id: f.id, status: f.status, reason: f.reason, receipt: f.receipt })),
    tree: verdict.tree,
    blocks,
    stop_hook_active: request.stopHookActive,
    ...(recorded.length > 0 && { dispatches: recorded.map((d) => ({ id: d.id, state: d.state, running: d.running })) }),
    ...(request.claim !== null && request.claim.trim() !== '' && { claim: claimOf(request.claim) }),
  };
  const decision: GateDecision = {
    kind,
    reason: body.reason,
    workspace: workspace.root,
    findings: verdict.findings,
    onStop: spec?.gate.onStop ?? null,
    budgetSeconds: spec?.gate.budgetSeconds ?? null,
    blocks,
    maxBlocks: policy.maxBlocks,
    detail: kind === 'escaped' ? `the last block was: ${verdict.reason}${verdict.detail ? ` (${verdict.detail})` : ''}` : verdict.detail,
    entry: body.id,
    dispatches: dispatched.open,
    dispatch: dispatched.own,
  };
  try {
    await (await ctx.ledgers.write(workspace)).appendSessionEntry(body, await signerFor(ctx, workspace, spec));
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    return unrecorded('block', 'ledger_unusable', workspace.root, `the decision could not be recorded: ${error.message}`);
  }
  return decision;
}

/** A decision with no ledger entry: nothing promised (allow), or nothing could be recorded (block). */
export function unrecorded(kind: 'allow' | 'block', reason: GateReason, workspace: string | null, detail: string): GateDecision {
  return {
    kind,
    reason,
    workspace,
    findings: [],
    onStop: null,
    budgetSeconds: null,
    blocks: 0,
    maxBlocks: null,
    detail,
    entry: null,
    dispatches: [],
    dispatch: null,
  };
}

/**
 * Gate decisions and dispatch transitions are signed like receipts when the
 * workspace signs. When the key cannot be used they are still recorded
 * (unsigned, which audit reports): a verify the stop ran has already
 * refused to run for the same reason.
 */
export async function signerFor(ctx: GateContext, workspace: Workspace, spec: Spec | null): Promise<AppendOptions> {
  const signer = await entrySigner(ctx.home, ctx.env, spec, workspace.root);
  return signer.ok ? signer.value : {};
}

/** The agent's claim as a gate entry keeps it: redacted, cut, and the hash of the whole. */
function claimOf(text: string): NonNullable<GateBody['claim']> {
  const redacted = redact(text);
  return { text: redacted.slice(0, CLAIM_CHARS), sha256: sha256(text), truncated: redacted.length > CLAIM_CHARS };
}
