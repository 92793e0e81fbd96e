import { digestJson, sha256, type Sha256 } from '../core/digest.js';
import { newId } from '../core/ids.js';
import type { EngineContext } from '../engine/context.js';
import { checkStatuses, type CheckStatus } from '../engine/status.js';
import { LedgerError, type AppendOptions, type Ledger } from '../ledger/ledger.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import { loadSpec } from '../spec/load.js';
import type { CheckDef, Spec } from '../spec/model.js';
import { DEFAULT_GATE } from '../spec/model.js';
import { trustState } from '../trust/trust.js';
import type { Workspace } from '../workspace/find.js';
import type { GateContext, StopRequest } from './context.js';
import type { GateDecision, GateFinding, GateReason } from './decision.js';
import type { GateBody } from './entries.js';
import { excerptOf } from './excerpt.js';
import { SessionHistory } from './history.js';
import { locateForHook } from './locate.js';
import { candidatesAt, isAffected, tierOf, treeDigest } from './relevance.js';
import { runWithinBudget } from './run-within-budget.js';

/** What a stop is answered with before the escape rule and the record are applied. */
interface Verdict {
  readonly kind: 'allow' | 'block';
  readonly reason: GateReason;
  readonly findings: readonly GateFinding[];
  readonly detail: string | null;
  /** What the files looked like: equal trees mean nothing changed between two blocks. */
  readonly tree: Sha256 | null;
}

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
 */
export async function decideStop(request: StopRequest, ctx: GateContext): Promise<GateDecision> {
  const place = locateForHook(request.cwd);
  if (place.kind === 'none') return unrecorded('allow', 'no_spec', null, 'no vouch.yaml in this directory or any parent');
  const { workspace } = place;

  let history: SessionHistory;
  try {
    history = await readHistory(ctx, workspace, request.session);
  } catch (error) {
    if (error instanceof LedgerError) return unrecorded('block', 'ledger_unusable', workspace.root, `${error.path}: ${error.message}`);
    throw error;
  }

  if (place.kind === 'ledger_only') {
    if (!history.promised) return unrecorded('allow', 'no_spec', workspace.root, 'no vouch.yaml, and vouch has no record of this session');
    return settle(request, ctx, workspace, history, null, specLevel('spec_missing', `${workspace.specPath} was removed after vouch began gating this session`));
  }

  const loaded = loadSpec(workspace.specPath);
  if (!loaded.ok) {
    const first = loaded.error.more?.[0];
    const detail = `${loaded.error.message}${first ? `; ${first.where ?? ''}: ${first.message}` : ''}`;
    return settle(request, ctx, workspace, history, null, specLevel('spec_invalid', detail));
  }
  const spec = loaded.value;
  const trust = trustState(ctx.home, workspace.root, spec.sha256);
  if (!trust.ok) return settle(request, ctx, workspace, history, spec, specLevel('trust_unreadable', trust.error.message, spec.sha256));
  if (trust.value.kind !== 'allowed') {
    const why = trust.value.kind === 'changed' ? 'vouch.yaml changed since it was allowed' : 'vouch.yaml was never allowed in this workspace';
    return settle(request, ctx, workspace, history, spec, specLevel('spec_not_allowed', why, spec.sha256));
  }
  return settle(request, ctx, workspace, history, spec, await gradeChecks(request, ctx, workspace, spec, history));
}

async function gradeChecks(request: StopRequest, ctx: GateContext, workspace: Workspace, spec: Spec, history: SessionHistory): Promise<Verdict> {
  if (!spec.checks.some((check) => check.block)) {
    return { kind: 'allow', reason: 'no_blocking_checks', findings: [], detail: 'every check in vouch.yaml is advisory', tree: null };
  }
  const subagent = request.event === 'SubagentStop';
  const agent = subagent ? request.agentId : null;
  const changes = { touched: history.touched(agent), opaque: history.wroteOpaquely(agent), ownWritesOnly: subagent };
  const candidates = candidatesAt(spec.checks, tierOf(request.event));
  if (candidates.length === 0) {
    const changed = changes.touched.size > 0 || changes.opaque;
    return changed
      ? { kind: 'block', reason: 'tier_uncovered', findings: [], detail: `no blocking check applies at tier ${tierOf(request.event)}`, tree: null }
      : { kind: 'allow', reason: 'nothing_relevant', findings: [], detail: null, tree: null };
  }

  const engine: EngineContext = {
    workspace,
    spec,
    home: ctx.home,
    actor: 'hook',
    env: ctx.env,
    ...(ctx.now && { now: ctx.now }),
    ...(ctx.hashWorker && { hashWorker: ctx.hashWorker }),
  };
  const result = await checkStatuses(engine, candidates, { openLedger: () => ctx.openLedgerForRead(workspace), everyFingerprint: true });
  if (result.kind === 'trust_error') return specLevel('trust_unreadable', result.problem.message, spec.sha256);
  const statuses = spec.gate.requireRemote ? result.statuses.map((status) => onlyRemote(status, spec)) : result.statuses;
  const tree = treeDigest(candidates, statuses);
  const affected = candidates.flatMap((check, i) => (isAffected(check, statuses[i]!, changes) ? [{ check, status: statuses[i]! }] : []));
  const owing = affected.filter((entry) => entry.status.status !== 'PASS');
  if (affected.length === 0) return { kind: 'allow', reason: 'nothing_relevant', findings: [], detail: null, tree };
  if (owing.length === 0) return { kind: 'allow', reason: 'all_pass', findings: affected.map((a) => finding(a.status, undefined)), detail: null, tree };

  // Blocked this often with these very files: stop here, and let settle() decide the escape.
  // With require_remote a local run could never satisfy the gate, so none is started.
  if (history.consecutiveBlocks(scopeOf(request), tree) >= spec.gate.maxBlocks || spec.gate.onStop === 'require' || spec.gate.requireRemote) {
    return { kind: 'block', reason: 'not_passing', findings: await quote(ctx, workspace, owing), detail: null, tree };
  }
  return verifyOwing(ctx, engine, workspace, spec, affected, owing, tree);
}

/**
 * gate.require_remote: a PASS counts only when it is a remote receipt whose
 * verifier signature status checked under the verifier_key pinned in the
 * spec. A key in VOUCH_HOME/keys is not enough here: the local signing key
 * lives there too, and the agent can read it.
 */
function onlyRemote(status: CheckStatus, spec: Spec): CheckStatus {
  if (status.status !== 'PASS') return status;
  const pinned = spec.verifierKey === null ? undefined : sha256(Buffer.from(spec.verifierKey, 'hex'));
  if (status.verifier !== undefined && status.verifier === pinned) return status;
  const { fresh: _fresh, ...rest } = status;
  return {
    ...rest,
    status: 'UNKNOWN',
    reason: 'remote_required',
    detail: status.verifier === undefined ? 'the latest PASS was recorded locally; gate.require_remote needs one from the pinned verifier' : `the latest PASS is from verifier ${status.verifier.slice(0, 16)}, not the verifier_key pinned in vouch.yaml`,
  };
}

/** gate.on_stop: verify. Runs the owing checks that have no fresh receipt, then judges again. */
async function verifyOwing(
  ctx: GateContext,
  engine: EngineContext,
  workspace: Workspace,
  spec: Spec,
  affected: readonly { check: CheckDef; status: CheckStatus }[],
  owing: readonly { check: CheckDef; status: CheckStatus }[],
  tree: Sha256,
): Promise<Verdict> {
  const toRun = owing.filter((entry) => entry.status.fresh !== true).map((entry) => entry.check);
  let ledger: Ledger | undefined;
  const run = await runWithinBudget(
    engine,
    toRun,
    spec.gate.budgetSeconds,
    () => (ledger ??= ctx.openLedgerForWrite(workspace)),
    ctx.signal,
  ).finally(() => ledger?.close());
  if (run.kind === 'not_allowed') return specLevel('spec_not_allowed', 'vouch.yaml stopped being allowed while the gate ran', spec.sha256);
  if (run.kind === 'trust_error') return specLevel('trust_unreadable', run.problem.message, spec.sha256);

  const quoted = await quote(ctx, workspace, owing.filter((entry) => entry.status.fresh === true));
  const findings = affected.map(({ check, status }): GateFinding => {
    const receipt = run.receipts.get(check.id);
    if (receipt) return { ...fromReceipt(receipt), budgetExhausted: run.exhausted && receipt.body.reason === 'interrupted' };
    if (toRun.includes(check)) return { ...finding(status, undefined), budgetExhausted: run.exhausted };
    return quoted.find((q) => q.id === check.id) ?? finding(status, undefined);
  });
  const passing = findings.every((f) => f.status === 'PASS');
  return { kind: passing ? 'allow' : 'block', reason: passing ? 'all_pass' : 'not_passing', findings, detail: null, tree };
}

/** Findings for checks whose failing receipt is still fresh: quote the receipt's output. */
async function quote(ctx: GateContext, workspace: Workspace, owing: readonly { status: CheckStatus }[]): Promise<GateFinding[]> {
  const ids = owing.filter((entry) => entry.status.receipt !== null).map((entry) => entry.status.id);
  const ledger = ids.length > 0 ? ctx.openLedgerForRead(workspace) : undefined;
  try {
    const latest = ledger ? await ledger.latestReceipts(ids) : new Map<string, StoredReceipt>();
    return owing.map(({ status }) => finding(status, latest.get(status.id)));
  } finally {
    await ledger?.close();
  }
}

function finding(status: CheckStatus, receipt: StoredReceipt | undefined): GateFinding {
  const quoteIt = status.fresh === true && receipt?.intact === true && status.status !== 'PASS';
  return {
    id: status.id,
    status: status.status,
    reason: status.reason,
    detail: status.detail,
    receipt: status.receipt,
    excerpt: quoteIt ? excerptOf(receipt.body) : null,
    ranNow: false,
    budgetExhausted: false,
  };
}

function fromReceipt(receipt: StoredReceipt): GateFinding {
  const body = receipt.body;
  return {
    id: body.check_id,
    status: body.verdict,
    reason: body.reason,
    detail: body.detail,
    receipt: body.id,
    excerpt: body.verdict === 'PASS' ? null : excerptOf(body),
    ranNow: true,
    budgetExhausted: false,
  };
}

/** A block about the spec itself; its tree is the spec's state, so repeated identical blocks can escape. */
function specLevel(reason: GateReason, detail: string, specSha: Sha256 | null = null): Verdict {
  return { kind: 'block', reason, findings: [], detail, tree: digestJson({ reason, spec: specSha }) };
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
): Promise<GateDecision> {
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
  };
  try {
    const ledger = ctx.openLedgerForWrite(workspace);
    try {
      await ledger.appendSessionEntry(body, await gateSigner(ctx, workspace, spec));
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
  return { kind, reason, workspace, findings: [], onStop: null, budgetSeconds: null, blocks: 0, maxBlocks: null, detail, entry: null };
}

/**
 * A gate decision is signed like a receipt when the workspace signs, so a
 * forged "allow" is as detectable as a forged PASS. When the key cannot be
 * used, the decision is still recorded (unsigned, which audit reports): the
 * verify that the stop ran has already refused to run for the same reason.
 */
async function gateSigner(ctx: GateContext, workspace: Workspace, spec: Spec | null): Promise<AppendOptions> {
  if (!spec) return {};
  const { signingKeyFor } = await import('../crypto/select.js');
  const key = signingKeyFor(ctx.home, ctx.env, spec, workspace.root);
  if (!key.ok || !key.value) return {};
  const { signerFor } = await import('../crypto/signature.js');
  return { sign: signerFor(key.value) };
}
