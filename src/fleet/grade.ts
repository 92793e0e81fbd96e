import type { Sha256 } from '../core/digest.js';
import type { GateContext } from '../gate/context.js';
import { gradeAtTier, specLevel, type GradeRequest, type Verdict } from '../gate/grade.js';
import type { SessionHistory } from '../gate/history.js';
import type { Actor } from '../receipt/receipt.js';
import type { Spec } from '../spec/model.js';
import { notAllowedWords, trustState } from '../trust/trust.js';
import type { Workspace } from '../workspace/find.js';
import type { Dispatch, Grade } from './model.js';

/** What the checker made of a reported dispatch. */
export type GradeOutcome =
  /** A verdict: every relevant blocking check of its tier is a fresh PASS (verified), or one is not (contradicted). */
  | { readonly kind: 'graded'; readonly to: 'verified' | 'contradicted'; readonly grade: Grade; readonly verdict: Verdict }
  /** Nothing at its tier could grade it: no verdict is recorded, and it reads `ungraded`. */
  | { readonly kind: 'ungraded'; readonly verdict: Verdict; readonly why: string }
  /** The spec cannot grade anything now (not allowed, trust unreadable): no verdict. */
  | { readonly kind: 'refused'; readonly verdict: Verdict }
  /** vouch.yaml changed since the dispatch pinned it: not graded against a spec the agent could have edited. */
  | { readonly kind: 'drift'; readonly pinned: Sha256 | null; readonly now: Sha256 }
  /** This process relayed the claim: nothing grades itself. */
  | { readonly kind: 'claimant'; readonly pid: number };

export interface GradeOptions {
  /** The ordering session's history: a captured subagent is graded on what it wrote itself. */
  readonly history: SessionHistory;
  readonly actor: Actor;
  /** How owed checks run: the gate's policy for a stop, unbounded for an explicit `vouch dispatch grade`. */
  readonly policy: GradeRequest['policy'];
  /** Which receipts count: the gate's own at a subagent's stop; a person's too for `vouch dispatch grade`. */
  readonly accept: GradeRequest['accept'];
  /** The stop the gate grades at, when it does. */
  readonly gate?: GradeRequest['gate'];
}

/**
 * The checker: grades a reported dispatch at its tier against the spec it
 * pinned. Untiered blocking checks apply at every tier, a tiered one only at
 * its own. A subagent captured by a hook is graded on the checks covering
 * what it wrote (as the gate grades its stop); a dispatch whose writes are
 * unknown, on every blocking check of its tier. Owed checks are run by the
 * engine in this process, which must not be the claimant's.
 */
export async function gradeDispatch(ctx: GateContext, workspace: Workspace, spec: Spec, dispatch: Dispatch, options: GradeOptions): Promise<GradeOutcome> {
  const order = dispatch.order;
  if (!order) throw new Error(`bug: grading dispatch ${dispatch.id} without its order`);
  if (order.spec_sha256 !== spec.sha256) return { kind: 'drift', pinned: order.spec_sha256, now: spec.sha256 };
  const claimant = dispatch.claim?.claimant_pid ?? null;
  if (claimant === process.pid) return { kind: 'claimant', pid: claimant };

  const trust = trustState(ctx.home, workspace.root, spec.sha256);
  if (!trust.ok) return { kind: 'refused', verdict: specLevel('trust_unreadable', trust.error.message, spec.sha256) };
  if (trust.value.kind !== 'allowed') {
    return { kind: 'refused', verdict: specLevel('spec_not_allowed', notAllowedWords(trust.value.kind), spec.sha256) };
  }

  const agent = order.agent?.id ?? null;
  const ownWrites = agent !== null && order.session !== null;
  const changes = ownWrites
    ? { touched: options.history.touched(agent), opaque: options.history.wroteOpaquely(agent), ownWritesOnly: true, since: options.history.firstAt(agent) }
    : ('all' as const);
  const verdict = await gradeAtTier(ctx, workspace, spec, {
    tier: order.tier,
    changes,
    scope: { event: 'SubagentStop', agentId: agent },
    history: options.history,
    policy: options.policy,
    actor: options.actor,
    accept: options.accept,
    ...(options.gate && { gate: options.gate }),
  });

  switch (verdict.reason) {
    case 'all_pass':
    case 'not_passing': {
      const grade: Grade = {
        tier: order.tier,
        spec_sha256: spec.sha256,
        basis: ownWrites ? 'own_writes' : 'whole_tier',
        checks: verdict.findings.map((f) => ({ id: f.id, status: f.status, reason: f.reason, receipt: f.receipt })),
      };
      return { kind: 'graded', to: verdict.reason === 'all_pass' ? 'verified' : 'contradicted', grade, verdict };
    }
    case 'tier_uncovered':
      return { kind: 'ungraded', verdict, why: verdict.detail ?? `no blocking check applies at tier ${order.tier}` };
    case 'nothing_relevant':
      return { kind: 'ungraded', verdict, why: `nothing its agent wrote is covered by a blocking check at tier ${order.tier}` };
    case 'no_blocking_checks':
      // Only when its agent wrote nothing: changes with nothing blocking are tier_uncovered.
      return { kind: 'ungraded', verdict, why: 'vouch.yaml declares no blocking check' };
    default:
      return { kind: 'refused', verdict };
  }
}

/** The transition's why: which checks decided it. */
export function gradeWhy(outcome: Extract<GradeOutcome, { kind: 'graded' }>): string {
  const failing = outcome.grade.checks.filter((c) => c.status !== 'PASS');
  if (outcome.to === 'verified')
    return `every relevant blocking check at tier ${outcome.grade.tier} is a fresh PASS: ${outcome.grade.checks.map((c) => c.id).join(', ')}`;
  return `not a fresh PASS at tier ${outcome.grade.tier}: ${failing.map((c) => `${c.id} ${c.status} (${c.reason})`).join(', ')}`;
}
