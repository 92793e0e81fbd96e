import type { CardContext } from '../cards/context.js';
import type { CardActor } from '../cards/model.js';
import { readWorker } from '../cards/worker.js';
import { VouchProblem } from '../core/problem.js';
import type { Verdict as Status } from '../core/status.js';
import type { GateContext, StopRequest } from '../gate/context.js';
import { gateStamp } from '../gate/grade.js';
import type { Workspace } from '../workspace/find.js';
import type { Dispatch, GradedCheck } from './model.js';

/** What the gate's run of a card's frozen proof gave, at its worker's stop. */
export type CardProofOutcome =
  /** The proof ran: its verdict (recorded on the card as one attempt), and whether that closed the card (and why not). */
  | {
      readonly kind: 'ran';
      readonly card: string;
      readonly verdict: Status;
      readonly checks: readonly GradedCheck[];
      /** The fingerprint of each run: equal between two blocks means the worker changed nothing the proof covers. */
      readonly fingerprints: readonly string[];
      readonly closed: boolean;
      /** Why a PASS did not close the card (completion refused it), or the failing checks in words. */
      readonly why: string;
      /** Runs of the proof in force so far, and how many did not pass. */
      readonly runs: number;
      readonly fixes: number;
    }
  /** Nothing ran: the card is closed, damaged, out of attempts, or its script is not bound. The worker's stop is judged as any subagent's. */
  | { readonly kind: 'not_run'; readonly card: string; readonly why: string };

/**
 * The gate acts on the card as its verifier: the proof it runs is the one
 * frozen when the card was opened, in the hook's process (never the
 * agent's), and its receipts carry the stop's stamp.
 */
function gateActor(client: string): CardActor {
  return { role: 'verifier', role_from: 'gate', agent: client, via: 'hook' };
}

/** The card a stopping subagent works on: the one its successful `vouch card claim` bound it to, else the one its dispatch was ordered for. */
export function cardOfWorker(home: string, request: StopRequest, dispatch: Dispatch): string | null {
  if (request.agentId === null) return null;
  const bound = readWorker(home, { client: request.client, session: request.session, agent: request.agentId });
  return bound?.card ?? dispatch.order?.card ?? null;
}

/**
 * A card's worker stopped: the gate runs the card's frozen proof and
 * records the verdict as one attempt. A PASS then closes the card, by the
 * same rule as `vouch card complete` (a PASS newer than the newest claim and
 * than every recorded change of what it covers, fresh, by a role whose PASS
 * counts), and the proof runs once more on close (the audit). A FAIL or
 * UNKNOWN leaves the card open for its worker to fix, or for the
 * coordinator to decide once it stops for good.
 */
export async function runCardProof(ctx: GateContext, workspace: Workspace, request: StopRequest, card: string): Promise<CardProofOutcome> {
  const [{ loadCard }, { isClosed }, { verifyCard }, { completeCard }] = await Promise.all([
    import('../cards/load.js'),
    import('../cards/fold.js'),
    import('../cards/verify.js'),
    import('../cards/complete.js'),
  ]);
  const cardCtx: CardContext = {
    home: ctx.home,
    env: ctx.env,
    ...(ctx.now && { now: ctx.now }),
    workspace,
    by: gateActor(request.client),
    ledgers: ctx.ledgers,
    specs: ctx.specs,
    gate: gateStamp(request),
  };
  const ledger = await ctx.ledgers.write(workspace);
  const loaded = await loadCard(ledger, ctx.home, card);
  if (loaded === undefined) return { kind: 'not_run', card, why: `card ${card} is not in this workspace's ledger` };
  if (loaded.kind !== 'ok') return { kind: 'not_run', card, why: `card ${card} cannot be read (${loaded.why})` };
  if (isClosed(loaded.view.state)) return { kind: 'not_run', card, why: `card ${card} is already closed (${loaded.view.state})` };

  let verified: Awaited<ReturnType<typeof verifyCard>>;
  try {
    verified = await verifyCard(cardCtx, card);
  } catch (error) {
    if (error instanceof VouchProblem) return { kind: 'not_run', card, why: error.problem.message };
    throw error;
  }
  const checks = verified.run.recorded.map((r) => ({ id: r.check_id, status: r.verdict, reason: r.reason, receipt: r.receipt }));
  const fingerprints = verified.run.recorded.map((r) => r.fingerprint);
  const tally = (view: typeof verified.view) => ({ runs: view.verdicts.length, fixes: view.verdicts.filter((v) => v.body.verdict !== 'PASS').length });
  if (verified.run.verdict !== 'PASS') {
    const failing = checks.filter((c) => c.status !== 'PASS');
    const why = failing.length > 0 ? failing.map((c) => `${c.id} ${c.status} (${c.reason})`).join(', ') : `${verified.run.verdict} (${verified.run.reason})`;
    return { kind: 'ran', card, verdict: verified.run.verdict, checks, fingerprints, closed: false, why, ...tally(verified.view) };
  }
  try {
    const closed = await completeCard(cardCtx, card);
    return { kind: 'ran', card, verdict: 'PASS', checks, fingerprints, closed: true, why: 'closed on the PASS', ...tally(closed) };
  } catch (error) {
    if (error instanceof VouchProblem)
      return { kind: 'ran', card, verdict: 'PASS', checks, fingerprints, closed: false, why: error.problem.message, ...tally(verified.view) };
    throw error;
  }
}
