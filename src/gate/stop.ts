import { digestJson, sha256 } from '../core/digest.js';
import { newId } from '../core/ids.js';
import { entrySigner } from '../crypto/entry-signer.js';
import type { Dispatch } from '../fleet/model.js';
import { LedgerError, type AppendOptions } from '../ledger/ledger.js';
import { redact } from '../runner/redact.js';
import { loadSpec } from '../spec/load.js';
import type { Spec } from '../spec/model.js';
import { DEFAULT_GATE } from '../spec/model.js';
import { notAllowedWords, trustState } from '../trust/trust.js';
import { workspaceAt, type Workspace } from '../workspace/find.js';
import { existsSync } from 'node:fs';
import type { GateContext, StopRequest } from './context.js';
import type { DispatchNote, GateDecision, GateReason } from './decision.js';
import { CLAIM_CHARS, type GateBody } from './entries.js';
import { gateAcceptance, gateStamp, gradeAtTier, specLevel, type Verdict } from './grade.js';
import { SessionHistory } from './history.js';
import { locateForHook, type Located } from './locate.js';
import { driftSince } from './baseline.js';
import { protectListOf } from './protect-list.js';
import { sessionWatches, watchSession, type SessionWatch } from './session-record.js';
import { tierOf } from './relevance.js';

/**
 * The gate: may this agent stop? Allowed only when every blocking check
 * relevant to what the session changed is a fresh PASS. Otherwise, per the
 * spec's gate.on_stop, the stale or missing checks are run within the time
 * budget (verify) or the agent is told how to produce the receipt (require),
 * and the stop is blocked on anything but PASS. A gate with nothing to grade
 * never reads as a pass: a spec that is missing after this session was
 * gated, invalid or not allowed blocks. Every decision in a workspace is
 * recorded in its ledger; after max_blocks blocks in a row with no file
 * change the stop is let through and recorded as escaped (unverified).
 *
 * A subagent's stop is also its dispatch's report and grade (fleet/
 * subagent.ts); the session's own stop is also held while a dispatch it
 * ordered is half-closed (fleet/sweep.ts).
 */
export async function decideStop(request: StopRequest, ctx: GateContext): Promise<GateDecision> {
  const here = locateForHook(request.cwd);
  // The stop may be the session's first hook here: it is then watched from now.
  if (here.kind === 'spec') await watchHere(ctx, request, here.workspace);
  const { watches, damaged } = sessionWatches(ctx.home, request.client, request.session);
  const targets = targetsOf(here, watches);
  if (targets.length === 0) {
    if (damaged.length > 0) return unrecorded('block', 'session_record_damaged', null, `${damaged[0]} cannot be read: vouch's record of this session was altered`);
    return unrecorded('allow', 'no_spec', null, 'no vouch.yaml in this directory or any parent');
  }
  const decisions: GateDecision[] = [];
  for (const target of targets) decisions.push(await decideIn(request, ctx, target, damaged));
  // A block anywhere holds the stop; an escape is reported over an allow.
  return decisions.find((d) => d.kind === 'block') ?? decisions.find((d) => d.kind === 'escaped') ?? decisions[0]!;
}

/** One workspace a stop is judged in: where its cwd is, or one the session was seen working in. */
interface Target {
  readonly workspace: Workspace;
  /** The session's record there, when vouch saw it working there before. */
  readonly watch: SessionWatch | null;
}

/**
 * The workspaces a stop answers for: the one its cwd is in (nearest spec,
 * else nearest ledger), and every workspace vouch recorded the session in
 * (under VOUCH_HOME), so a stop from /tmp, a deleted folder, or a workspace
 * whose spec and ledger were removed is still judged where the work was.
 */
function targetsOf(here: Located, watches: readonly SessionWatch[]): Target[] {
  const targets = new Map<string, Target>();
  if (here.kind !== 'none') targets.set(here.workspace.root, { workspace: here.workspace, watch: null });
  for (const watch of watches) targets.set(watch.workspace, { workspace: targets.get(watch.workspace)?.workspace ?? workspaceAt(watch.workspace), watch });
  return [...targets.values()];
}

async function watchHere(ctx: GateContext, request: StopRequest, workspace: Workspace): Promise<void> {
  const { globs } = protectListOf(workspace, true);
  await watchSession(ctx.home, request.client, request.session, workspace, globs, ctx.env, (ctx.now ?? (() => new Date()))());
}

async function decideIn(request: StopRequest, ctx: GateContext, target: Target, damaged: readonly string[]): Promise<GateDecision> {
  const { workspace, watch } = target;
  const hasSpec = existsSync(workspace.specPath);
  const loaded = hasSpec ? loadSpec(workspace.specPath) : null;
  const specNow = loaded?.ok ? loaded.value : null;

  let history: SessionHistory;
  let dispatch: Dispatch | null = null;
  try {
    history = await readHistory(ctx, workspace, request.session);
    // A subagent is on the ledger before anything is judged: one that stops
    // with no SubagentStart record is put there now, so none is lost.
    // (Where the spec is gone and vouch never gated this session, nothing was promised: none is created.)
    if (request.event === 'SubagentStop' && request.agentId !== null) {
      dispatch = await dispatchAtStop(request, ctx, workspace, specNow, hasSpec || history.promised || watch !== null);
    }
  } catch (error) {
    if (error instanceof LedgerError) return unrecorded('block', 'ledger_unusable', workspace.root, `${error.path}: ${error.message}`);
    throw error;
  }
  const own: Dispatched = { open: [], own: dispatch ? note(dispatch) : null };
  const promised = history.promised || watch !== null;

  if (loaded === null) {
    if (!promised && !dispatch) return unrecorded('allow', 'no_spec', workspace.root, 'no vouch.yaml, and vouch has no record of this session');
    const missing = specLevel('spec_missing', `${workspace.specPath} was removed after vouch began gating this session`);
    if (!existsSync(workspace.root)) return unrecorded('block', 'spec_missing', workspace.root, `${workspace.root} was removed after vouch began gating this session there`);
    return settle(request, ctx, workspace, history, null, missing, own);
  }
  if (!loaded.ok) {
    const first = loaded.error.more?.[0];
    const detail = `${loaded.error.message}${first ? `; ${first.where ?? ''}: ${first.message}` : ''}`;
    return settle(request, ctx, workspace, history, null, specLevel('spec_invalid', detail), own);
  }
  const spec = loaded.value;
  const trust = trustState(ctx.home, workspace.root, spec.sha256);
  if (!trust.ok) return settle(request, ctx, workspace, history, spec, specLevel('trust_unreadable', trust.error.message, spec.sha256), own);
  if (trust.value.kind !== 'allowed') {
    return settle(request, ctx, workspace, history, spec, specLevel('spec_not_allowed', notAllowedWords(trust.value.kind), spec.sha256), own);
  }
  const held = await heldByResult(ctx, workspace, watch, damaged);
  if (held) return settle(request, ctx, workspace, history, spec, held, own);

  if (dispatch) {
    const { judgeSubagentStop } = await import('../fleet/subagent.js');
    const judged = await judgeSubagentStop({ request, ctx, workspace, spec, history, dispatch, sign: await signerFor(ctx, workspace, spec) });
    return settle(request, ctx, workspace, history, spec, judged.verdict, { open: [], own: note(judged.dispatch) });
  }
  const subagent = request.event === 'SubagentStop';
  const agent = subagent ? request.agentId : null;
  const verdict = await gradeAtTier(ctx, workspace, spec, {
    tier: tierOf(request.event),
    changes: { touched: history.touched(agent), opaque: history.wroteOpaquely(agent), ownWritesOnly: subagent, since: subagent ? history.firstAt(agent) : (watch?.since ?? history.firstAt()) },
    scope: scopeOf(request),
    history,
    policy: spec.gate,
    actor: 'hook',
    accept: gateAcceptance(spec),
    gate: gateStamp(request),
  });
  if (subagent) return settle(request, ctx, workspace, history, spec, verdict, NONE);
  const open = await sessionDispatches(ctx, workspace, request, spec);
  return settle(request, ctx, workspace, history, spec, holdOnUnsettled(verdict, open), { open, own: null });
}

/**
 * The gate decides on results, not on the commands it saw: a protected file
 * or a piece of the gate's wiring that differs from the session's first
 * hook holds the stop, however it was written (a script, a hard link, git).
 * A record of the session that cannot be read holds it too.
 */
async function heldByResult(ctx: GateContext, workspace: Workspace, watch: SessionWatch | null, damaged: readonly string[]): Promise<Verdict | null> {
  if (damaged.length > 0) return specLevel('session_record_damaged', `${damaged.join(', ')} cannot be read: vouch's record of this session was altered`);
  if (watch === null) return null;
  const drift = await driftSince(ctx.home, workspace, watch, ctx.env);
  if (drift.wiring.length > 0) return driftVerdict('wiring_changed', drift.wiring, watch);
  if (drift.protected.length > 0) return driftVerdict('protected_changed', drift.protected, watch);
  return null;
}

function driftVerdict(reason: 'wiring_changed' | 'protected_changed', paths: readonly string[], watch: SessionWatch): Verdict {
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
  return { kind: 'block', reason, findings: [], detail: `${shown} changed since this session's first hook (${watch.since})`, tree: digestJson({ reason, paths }) };
}

/** A stop's dispatches: those the session ordered (Stop), or the subagent's own (SubagentStop). */
interface Dispatched {
  readonly open: readonly DispatchNote[];
  readonly own: DispatchNote | null;
}

const NONE: Dispatched = { open: [], own: null };

/** The session may not stop while a dispatch it ordered is half-closed; running ones are only listed. */
function holdOnUnsettled(verdict: Verdict, open: readonly DispatchNote[]): Verdict {
  const unsettled = open.filter((d) => !d.running);
  if (verdict.kind === 'block' || unsettled.length === 0) return verdict;
  const ids = unsettled.map((d) => `${d.id} ${d.state}`).join(', ');
  return { kind: 'block', reason: 'dispatches_unsettled', findings: [], detail: ids, tree: digestJson({ verdict: verdict.tree, unsettled: unsettled.map((d) => [d.id, d.state]) }) };
}

async function dispatchAtStop(request: StopRequest, ctx: GateContext, workspace: Workspace, spec: Spec | null, create: boolean): Promise<Dispatch | null> {
  const { openDispatchOf, putSubagentOnRecord } = await import('../fleet/subagent.js');
  const { Dispatches } = await import('../fleet/store.js');
  const ledger = create ? ctx.openLedgerForWrite(workspace) : ctx.openLedgerForRead(workspace);
  if (!ledger) return null;
  try {
    const trust = { home: ctx.home, requireSignature: spec?.requireSignature ?? false, ...(ctx.now && { now: ctx.now }) };
    if (!create) return (await openDispatchOf(new Dispatches(ledger, trust), request.session, request.agentId!)) ?? null;
    const agent = { client: request.client, session: request.session, agentId: request.agentId!, agentType: request.agentType };
    const why = 'no SubagentStart was recorded for this subagent: put on the ledger at its stop (its spec pin is the spec at its stop)';
    return await putSubagentOnRecord(ledger, workspace, spec, agent, why, await signerFor(ctx, workspace, spec), trust);
  } finally {
    await ledger.close();
  }
}

async function sessionDispatches(ctx: GateContext, workspace: Workspace, request: StopRequest, spec: Spec): Promise<DispatchNote[]> {
  const ledger = ctx.openLedgerForRead(workspace);
  if (!ledger) return [];
  try {
    const { openDispatches } = await import('../fleet/sweep.js');
    return await openDispatches(ledger, request.session, new Set(request.runningAgents), { home: ctx.home, requireSignature: spec.requireSignature });
  } finally {
    await ledger.close();
  }
}

function note(dispatch: Dispatch): DispatchNote {
  return {
    id: dispatch.id,
    state: dispatch.state,
    verdict: dispatch.verdict,
    tier: dispatch.order?.tier ?? null,
    label: dispatch.order?.agent ? `${dispatch.order.agent.type ?? 'subagent'} ${dispatch.order.agent.id}` : dispatch.id,
    running: dispatch.state === 'dispatched',
  };
}

function scopeOf(request: StopRequest) {
  return { event: request.event, agentId: request.event === 'SubagentStop' ? request.agentId : null };
}

async function readHistory(ctx: GateContext, workspace: Workspace, session: string): Promise<SessionHistory> {
  const ledger = ctx.openLedgerForRead(workspace);
  if (!ledger) return SessionHistory.empty();
  try {
    return SessionHistory.from(await ledger.sessionEntries(session));
  } finally {
    await ledger.close();
  }
}

/**
 * Applies the escape rule to a verdict and records the decision. A block
 * that follows max_blocks blocks on the same files is let through as
 * escaped; a decision that cannot be recorded is a block (nothing is let
 * through unrecorded).
 */
async function settle(
  request: StopRequest,
  ctx: GateContext,
  workspace: Workspace,
  history: SessionHistory,
  spec: Spec | null,
  verdict: Verdict,
  dispatched: Dispatched,
): Promise<GateDecision> {
  const recorded = dispatched.own ? [dispatched.own] : dispatched.open;
  const policy = spec?.gate ?? DEFAULT_GATE;
  const prior = verdict.kind === 'block' ? history.consecutiveBlocks(scopeOf(request), verdict.tree) : 0;
  const kind = verdict.kind === 'block' && prior >= policy.maxBlocks ? 'escaped' : verdict.kind;
  const blocks = verdict.kind === 'block' ? prior + 1 : 0;
  const now = (ctx.now ?? (() => new Date()))();
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
    const ledger = ctx.openLedgerForWrite(workspace);
    try {
      await ledger.appendSessionEntry(body, await signerFor(ctx, workspace, spec));
    } finally {
      await ledger.close();
    }
  } catch (error) {
    if (!(error instanceof LedgerError)) throw error;
    return unrecorded('block', 'ledger_unusable', workspace.root, `the decision could not be recorded: ${error.message}`);
  }
  return decision;
}

function unrecorded(kind: 'allow' | 'block', reason: GateReason, workspace: string | null, detail: string): GateDecision {
  return { kind, reason, workspace, findings: [], onStop: null, budgetSeconds: null, blocks: 0, maxBlocks: null, detail, entry: null, dispatches: [], dispatch: null };
}

/**
 * Gate decisions and dispatch transitions are signed like receipts when the
 * workspace signs. When the key cannot be used they are still recorded
 * (unsigned, which audit reports): a verify the stop ran has already
 * refused to run for the same reason.
 */
async function signerFor(ctx: GateContext, workspace: Workspace, spec: Spec | null): Promise<AppendOptions> {
  const signer = await entrySigner(ctx.home, ctx.env, spec, workspace.root);
  return signer.ok ? signer.value : {};
}

/** The agent's claim as a gate entry keeps it: redacted, cut, and the hash of the whole. */
function claimOf(text: string): NonNullable<GateBody['claim']> {
  const redacted = redact(text);
  return { text: redacted.slice(0, CLAIM_CHARS), sha256: sha256(text), truncated: redacted.length > CLAIM_CHARS };
}
