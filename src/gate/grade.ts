import { digestJson, sha256, type Sha256 } from '../core/digest.js';
import { engineContext, type EngineContext } from '../engine/context.js';
import { checkStatuses, type CheckStatus } from '../engine/status.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Actor, GateStamp, StoredReceipt } from '../receipt/receipt.js';
import type { Tier } from '../spec/fields.js';
import type { CheckDef, GatePolicy, Spec } from '../spec/model.js';
import type { Workspace } from '../workspace/find.js';
import type { GateContext, StopRequest } from './context.js';
import type { GateFinding, GateReason } from './decision.js';
import { excerptOf } from './excerpt.js';
import type { SessionHistory, StopScope } from './history.js';
import { candidatesAt, isAffected, treeDigest, type SessionChanges } from './relevance.js';
import type { BudgetRun } from './run-within-budget.js';
import { launchBackground, liveMarker, waitForRuns, type BackgroundLauncher } from './background.js';
import { stampSeen } from './stamp.js';
import { gateReuse } from './reuse-accept.js';

/** What a stop (or a dispatch's grade) is answered with, before the escape rule and the record are applied. */
export interface Verdict {
  readonly kind: 'allow' | 'block';
  readonly reason: GateReason;
  readonly findings: readonly GateFinding[];
  readonly detail: string | null;
  /** What the files looked like: equal trees mean nothing changed between two blocks. */
  readonly tree: Sha256 | null;
}

/**
 * One grading at a tier. The gate grades a stop on what the session (or one
 * subagent) wrote; a dispatch whose writes are unknown (ordered from the
 * CLI) is graded on every blocking check of its tier (`changes: 'all'`).
 */
export interface GradeRequest {
  readonly tier: Tier;
  readonly changes: SessionChanges | 'all';
  /** Which stop this is, to count blocks in a row on the same files. */
  readonly scope: StopScope;
  readonly history: SessionHistory;
  /** on_stop and max_blocks decide whether owed checks run; budget_seconds bounds them (null: no bound). */
  readonly policy: Pick<GatePolicy, 'onStop' | 'maxBlocks'> & { readonly budgetSeconds: number | null };
  /** Who the receipts of checks run here name. */
  readonly actor: Actor;
  /** Which receipts count (see `Acceptance`). */
  readonly accept: Acceptance;
  /** Set when the gate grades a stop: the receipts it records are stamped with it. */
  readonly gate?: GateStamp;
  /**
   * Set (with `gate`) when owed checks run in a background runner the gate
   * starts (background.ts) instead of this process: a check the budget
   * would cut short keeps running, and a later stop picks up its receipt.
   * Absent, they run here and the budget stops them (interrupted).
   */
  readonly background?: BackgroundLauncher;
}

/**
 * Which receipts a grade accepts as evidence. Evidence made inside the
 * agent's run never vouches for the agent, so:
 * - `gate`: only what the gate ran itself (a receipt stamped by a stop hook)
 *   or a remote receipt whose verifier signature held. Anything else that is
 *   relevant, PASS or not, is run again by the gate (on_stop: verify).
 * - `outside_agent`: also receipts recorded outside any agent run as vouch
 *   detects it (a person's `vouch verify`). The markers are labels an agent
 *   can strip, so this is for graders that run nothing in the agent's
 *   process tree: a person's `vouch dispatch grade`, and `on_stop: require`,
 *   where the gate runs nothing and a person must.
 */
export type Acceptance = 'gate' | 'outside_agent';

/** What a stop accepts: under on_stop: require the gate runs nothing, so a person's run must be able to count. */
export function gateAcceptance(spec: Spec): Acceptance {
  return spec.gate.onStop === 'require' ? 'outside_agent' : 'gate';
}

/** The stamp the gate's own receipts carry: the stop it answered. */
export function gateStamp(request: Pick<StopRequest, 'session' | 'client' | 'event'>): GateStamp {
  return { session: request.session, client: request.client, event: request.event };
}

/**
 * Grades the blocking checks that apply at a tier (untiered ones apply at
 * every tier): allowed only when every relevant one is a fresh PASS. Owed
 * checks without a fresh receipt are run (on_stop: verify) within the
 * budget; a fresh FAIL is quoted, not run again. An absent grade is never a
 * pass: changes no blocking check at this tier covers (or a spec whose
 * checks are all advisory) are `tier_uncovered`.
 */
export async function gradeAtTier(ctx: GateContext, workspace: Workspace, spec: Spec, request: GradeRequest): Promise<Verdict> {
  const changes = request.changes;
  const changed = changes === 'all' || changes.touched.size > 0 || changes.opaque;
  if (!spec.checks.some((check) => check.block)) {
    // Advisory checks never grade a stop: changed files with nothing blocking are ungraded work, as at a tier no check covers.
    return changed
      ? {
          kind: 'block',
          reason: 'tier_uncovered',
          findings: [],
          detail: 'every check in vouch.yaml is advisory (block: false): nothing blocking grades these changes',
          tree: null,
        }
      : { kind: 'allow', reason: 'no_blocking_checks', findings: [], detail: 'every check in vouch.yaml is advisory', tree: null };
  }
  const candidates = candidatesAt(spec.checks, request.tier);
  if (candidates.length === 0) {
    return changed
      ? { kind: 'block', reason: 'tier_uncovered', findings: [], detail: `no blocking check applies at tier ${request.tier}`, tree: null }
      : { kind: 'allow', reason: 'nothing_relevant', findings: [], detail: null, tree: null };
  }

  const engine = engineContext(ctx, workspace, spec, request.actor, request.gate ? { gate: request.gate } : {});
  // One walk of the tree: the statuses, and the fingerprints the tree digest is made of.
  const result = await checkStatuses(engine, candidates, { openLedger: () => ctx.ledgers.read(workspace), everyFingerprint: true });
  if (result.kind === 'trust_error') return specLevel('trust_unreadable', result.problem.message, spec.sha256);
  const seen = (stamp: GateStamp) => stampSeen(ctx.home, workspace.root, stamp);
  const judge = (status: CheckStatus) => accepted(spec.gate.requireRemote ? onlyRemote(status, spec) : status, request.accept, seen);
  const statuses = result.statuses.map(judge);
  const tree = treeDigest(candidates, statuses);
  // A check an earlier stop of this session found not passing stays owed until it is a fresh PASS.
  const owed = request.history.owedChecks(request.scope.agentId);
  const affected = candidates.flatMap((check, i) =>
    changes === 'all' || owed.has(check.id) || isAffected(check, statuses[i]!, changes) ? [{ check, status: statuses[i]! }] : [],
  );
  const owing = affected.filter((entry) => entry.status.status !== 'PASS');
  if (affected.length === 0) return { kind: 'allow', reason: 'nothing_relevant', findings: [], detail: null, tree };
  if (owing.length === 0) return { kind: 'allow', reason: 'all_pass', findings: affected.map((a) => finding(a.status, undefined)), detail: null, tree };

  // Blocked this often with these very files: stop here, and let the caller decide the escape.
  // With require_remote a local run could never satisfy the gate, so none is started.
  if (request.history.consecutiveBlocks(request.scope, tree) >= request.policy.maxBlocks || request.policy.onStop === 'require' || spec.gate.requireRemote) {
    return { kind: 'block', reason: 'not_passing', findings: await quote(ctx, workspace, owing), detail: null, tree };
  }
  if (request.background && request.gate && request.policy.budgetSeconds !== null) {
    return inBackground(
      ctx,
      engine,
      workspace,
      spec,
      { launcher: request.background, stamp: request.gate, budgetSeconds: request.policy.budgetSeconds, judge },
      affected,
      owing,
      tree,
    );
  }
  return verifyOwing(ctx, engine, workspace, spec, request.policy.budgetSeconds, affected, owing, tree);
}

/** Checks owed a run: no fresh receipt, or one a budget or a signal cut short (that says nothing of the check). */
function needsRun(entry: { status: CheckStatus }): boolean {
  return entry.status.fresh !== true || entry.status.reason === 'interrupted';
}

interface BackgroundPlan {
  readonly launcher: BackgroundLauncher;
  readonly stamp: GateStamp;
  readonly budgetSeconds: number;
  /** How the grade counts a status (acceptance, require_remote). */
  readonly judge: (status: CheckStatus) => CheckStatus;
}

/**
 * The owed checks run in a background runner of the gate's (background.ts):
 * those one is already running are waited for, the others started in a new
 * one; the stop waits up to the budget, then judges the receipts as they
 * are. A check still running is named as such (`checks_running` when
 * nothing else holds the stop): the next stop picks up its result.
 */
async function inBackground(
  ctx: GateContext,
  engine: EngineContext,
  workspace: Workspace,
  spec: Spec,
  plan: BackgroundPlan,
  affected: readonly { check: CheckDef; status: CheckStatus }[],
  owing: readonly { check: CheckDef; status: CheckStatus }[],
  tree: Sha256,
): Promise<Verdict> {
  const deadline = Date.now() + plan.budgetSeconds * 1000;
  const root = workspace.root;
  const toRun = owing.filter(needsRun).map((entry) => entry.check);
  const start = toRun.filter((check) => liveMarker(ctx.home, root, check.id) === null);
  if (start.length > 0) {
    const order = {
      v: 1 as const,
      root,
      spec_sha256: spec.sha256,
      client: plan.stamp.client,
      session: plan.stamp.session,
      event: plan.stamp.event,
      checks: start.map((check) => check.id),
    };
    launchBackground(plan.launcher, ctx.home, order, new Map(start.map((check) => [check.id, check.timeout])));
  }
  await waitForRuns(
    ctx.home,
    root,
    toRun.map((check) => check.id),
    deadline,
    ctx.signal,
  );

  const again = await checkStatuses(
    engine,
    affected.map((entry) => entry.check),
    { openLedger: () => ctx.ledgers.read(workspace) },
  );
  if (again.kind === 'trust_error') return specLevel('trust_unreadable', again.problem.message, spec.sha256);
  const statuses = again.statuses.map(plan.judge);
  const quoted = await quote(
    ctx,
    workspace,
    statuses.map((status) => ({ status })),
  );
  const findings = quoted.map((found, i): GateFinding => {
    const check = affected[i]!.check;
    const marker = liveMarker(ctx.home, root, check.id);
    const ranNow = toRun.includes(check);
    return marker ? { ...found, excerpt: null, ranNow, runningSince: marker.started_at } : { ...found, ranNow };
  });
  const failing = findings.filter((f) => f.status !== 'PASS');
  if (failing.length === 0) return { kind: 'allow', reason: 'all_pass', findings, detail: null, tree };
  const reason = failing.every((f) => f.runningSince !== null) ? 'checks_running' : 'not_passing';
  return { kind: 'block', reason, findings, detail: null, tree };
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
    detail:
      status.verifier === undefined
        ? 'the latest PASS was recorded locally; gate.require_remote needs one from the pinned verifier'
        : `the latest PASS is from verifier ${status.verifier.slice(0, 16)}, not the verifier_key pinned in vouch.yaml`,
  };
}

/**
 * A status as the grade counts it. A fresh receipt the grade does not accept
 * is not evidence: a PASS reads UNKNOWN/not_gate_run, and any verdict loses
 * its freshness, so that on_stop: verify runs the check itself. A receipt
 * stamped by a stop counts only when vouch saw that stop's session through
 * the client's hooks here (see stamp.ts); an unseen stamp is a hook call the
 * agent made itself, inside its own run, so no acceptance takes it.
 */
function accepted(status: CheckStatus, accept: Acceptance, seen: (stamp: GateStamp) => boolean): CheckStatus {
  if (status.receipt === null || status.fresh !== true) return status;
  if (status.verifier !== undefined) return status;
  const unseen = status.gate !== undefined && !seen(status.gate);
  if (status.gate !== undefined && !unseen) return status;
  if (!unseen && accept === 'outside_agent' && status.agentRun === undefined) return status;
  const { fresh: _fresh, ...rest } = status;
  if (status.status !== 'PASS') return rest;
  const where = unseen
    ? `by a stop of session ${status.gate.session} (${status.gate.client}), which vouch never saw through the client's hooks in this workspace: a hook the agent answered itself`
    : status.agentRun
      ? `inside an agent run (${status.agentRun.agent}, seen by ${status.agentRun.marker})`
      : 'by a process other than the gate';
  return {
    ...rest,
    status: 'UNKNOWN',
    reason: 'not_gate_run',
    detail: `the latest PASS was recorded ${where}: evidence made inside the agent's run never lets it stop`,
  };
}

/** Runs the owing checks that have no fresh receipt, then judges again. */
async function verifyOwing(
  ctx: GateContext,
  engine: EngineContext,
  workspace: Workspace,
  spec: Spec,
  budgetSeconds: number | null,
  affected: readonly { check: CheckDef; status: CheckStatus }[],
  owing: readonly { check: CheckDef; status: CheckStatus }[],
  tree: Sha256,
): Promise<Verdict> {
  const toRun = owing.filter(needsRun).map((entry) => entry.check);
  const run = await runOwing(engine, toRun, budgetSeconds, () => ctx.ledgers.write(workspace), ctx.signal);
  if (run.kind === 'not_allowed') return specLevel('spec_not_allowed', 'vouch.yaml stopped being allowed while the gate ran', spec.sha256);
  if (run.kind === 'trust_error') return specLevel('trust_unreadable', run.problem.message, spec.sha256);

  const quoted = await quote(
    ctx,
    workspace,
    owing.filter((entry) => !needsRun(entry)),
  );
  const findings = affected.map(({ check, status }): GateFinding => {
    const receipt = run.receipts.get(check.id);
    if (receipt) return { ...fromReceipt(receipt), budgetExhausted: run.exhausted && receipt.body.reason === 'interrupted' };
    if (toRun.includes(check)) return { ...finding(status, undefined), budgetExhausted: run.exhausted };
    return quoted.find((q) => q.id === check.id) ?? finding(status, undefined);
  });
  const passing = findings.every((f) => f.status === 'PASS');
  return { kind: passing ? 'allow' : 'block', reason: passing ? 'all_pass' : 'not_passing', findings, detail: null, tree };
}

async function runOwing(
  engine: EngineContext,
  checks: readonly CheckDef[],
  budgetSeconds: number | null,
  open: () => Promise<Ledger>,
  signal?: AbortSignal,
): Promise<BudgetRun> {
  const ledger = await open();
  // Only a stop's own runs are reused (reuse-accept.ts); a person's dispatch grade stamps nothing, so it reuses what stops proved.
  const reuse = gateReuse(engine.home, engine.workspace.root, ledger);
  // The runner (verify, the log files, zlib) is loaded only when a stop owes a run.
  if (budgetSeconds !== null) {
    const { runWithinBudget } = await import('./run-within-budget.js');
    return runWithinBudget(engine, checks, budgetSeconds, () => Promise.resolve(ledger), signal, reuse);
  }
  const { verifyChecks } = await import('../engine/verify.js');
  const result = await verifyChecks(engine, checks, { openLedger: () => Promise.resolve(ledger), reuse, ...(signal && { signal }) });
  if (result.kind !== 'ran') return result.kind === 'not_allowed' ? { kind: 'not_allowed' } : result;
  return { kind: 'ran', receipts: new Map(result.receipts.map((receipt) => [receipt.body.check_id, receipt])), exhausted: false };
}

/** Findings for checks whose failing receipt is still fresh: quote the receipt's output. */
async function quote(ctx: GateContext, workspace: Workspace, owing: readonly { status: CheckStatus }[]): Promise<GateFinding[]> {
  const ids = owing.filter((entry) => entry.status.receipt !== null).map((entry) => entry.status.id);
  const ledger = ids.length > 0 ? await ctx.ledgers.read(workspace) : undefined;
  const latest = ledger ? await ledger.latestReceipts(ids) : new Map<string, StoredReceipt>();
  return owing.map(({ status }) => finding(status, latest.get(status.id)));
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
    runningSince: null,
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
    runningSince: null,
  };
}

/** A block about the spec itself; its tree is the spec's state, so repeated identical blocks can escape. */
export function specLevel(reason: GateReason, detail: string, specSha: Sha256 | null = null): Verdict {
  return { kind: 'block', reason, findings: [], detail, tree: digestJson({ reason, spec: specSha }) };
}
