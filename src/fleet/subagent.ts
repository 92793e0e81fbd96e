import { digestJson, sha256 } from '../core/digest.js';
import type { GateContext, StopRequest } from '../gate/context.js';
import { gateAcceptance, gateStamp, gradeAtTier, type Verdict } from '../gate/grade.js';
import type { SessionHistory } from '../gate/history.js';
import type { AppendOptions, Ledger } from '../ledger/ledger.js';
import type { Spec } from '../spec/model.js';
import type { Workspace } from '../workspace/find.js';
import { cardOfWorker, runCardProof, type CardProofOutcome } from './card-proof.js';
import { claimFromMessage } from './claim.js';
import { gradeDispatch, gradeWhy } from './grade.js';
import type { AgentRef, Dispatch, Grade, Writer } from './model.js';
import { chooseTier, manifestAt, orderDraft } from './order.js';
import { Dispatches, type DispatchesOptions } from './store.js';
import { readTranscriptPrompt } from './transcript.js';
import { currentWriter } from './writer.js';

/** A subagent as its client's hook names it. */
export interface SubagentRef {
  readonly client: AgentRef['client'];
  readonly session: string;
  readonly agentId: string;
  readonly agentType: string | null;
}

/** The open dispatch of one subagent: session + agent id is the whole join key, and an id may come back once closed. */
export async function openDispatchOf(store: Dispatches, session: string, agentId: string): Promise<Dispatch | undefined> {
  const open = await store.open();
  return open.find((d) => d.order?.session === session && d.order.agent?.id === agentId);
}

/**
 * Puts a subagent on the ledger as a dispatch, before it does any work
 * (SubagentStart), or at its stop when no start was recorded. The client
 * does not pass the spawn prompt to either hook, so none is recorded here.
 * Its tier is inferred: the session's own agent is the bridge, what it
 * spawns is a lane (the payload names no parent agent, so deeper nesting
 * cannot be seen). It pins the spec in force now.
 */
export async function putSubagentOnRecord(
  ledger: Ledger,
  workspace: Workspace,
  spec: Spec | null,
  agent: SubagentRef,
  why: string,
  sign: AppendOptions,
  trust: DispatchesOptions,
): Promise<Dispatch> {
  const store = new Dispatches(ledger, trust);
  const existing = await openDispatchOf(store, agent.session, agent.agentId);
  if (existing) return existing;
  const tier = chooseTier(null, { ancestors: [], session: agent.session });
  const draft = orderDraft({
    prompt: null,
    tier,
    parent: null,
    card: null,
    session: agent.session,
    agent: { client: agent.client, id: agent.agentId, type: agent.agentType },
    spec,
    manifest: await manifestAt(workspace, spec, tier.tier),
    why,
  });
  return store.create(draft, currentWriter('hook', agent.client), sign);
}

export interface SubagentStopInput {
  readonly request: StopRequest;
  readonly ctx: GateContext;
  readonly workspace: Workspace;
  readonly spec: Spec;
  readonly history: SessionHistory;
  readonly dispatch: Dispatch;
  readonly sign: AppendOptions;
}

/**
 * The per-subagent gate, on its dispatch. Each step is its own reason to
 * hold the stop: no final message (no report: silence is not a claim);
 * the pinned spec changed (not graded against a spec the agent could have
 * edited); then its claim is recorded and graded at its tier. A blocking
 * failure records `contradicted` and holds it; a pass records `verified`
 * and closes the dispatch. Where nothing at its tier grades its changes,
 * no verdict is recorded: the dispatch stays `reported`, the stop goes
 * through, and the session's own Stop is held until someone closes it. A
 * subagent that wrote nothing is closed with its claim ungraded.
 */
export async function judgeSubagentStop(input: SubagentStopInput): Promise<{ readonly verdict: Verdict; readonly dispatch: Dispatch }> {
  const { request, ctx, workspace, spec, history } = input;
  const ledger = await ctx.ledgers.write(workspace);
  {
    const store = new Dispatches(ledger, { home: ctx.home, requireSignature: spec.requireSignature, ...(ctx.now && { now: ctx.now }) });
    const writer = currentWriter('hook', request.client);
    let dispatch = input.dispatch;
    const held = (reason: 'no_report' | 'pin_drift', detail: string): { verdict: Verdict; dispatch: Dispatch } => ({
      verdict: { kind: 'block', reason, findings: [], detail, tree: digestJson({ reason, dispatch: dispatch.id, spec: spec.sha256 }) },
      dispatch,
    });

    const message = request.claim?.trim() ? request.claim : null;
    if (message === null) return held('no_report', `dispatch ${dispatch.id} has no report: the subagent stopped with no final message`);
    const pinned = dispatch.order?.spec_sha256 ?? null;
    if (pinned !== spec.sha256) {
      return held(
        'pin_drift',
        `dispatch ${dispatch.id} pinned vouch.yaml ${pinned ? pinned.slice(0, 12) : '(none: there was no valid spec)'}, and it is ${spec.sha256.slice(0, 12)} now`,
      );
    }

    // A record that cannot be believed is not moved: the stop is judged on the subagent's writes alone, and the
    // damaged dispatch holds the session's own Stop until a person closes it.
    if (dispatch.damage) return { verdict: await ownWritesOnly(input), dispatch };
    if (dispatch.lastState === 'dispatched' || dispatch.lastState === 'contradicted') {
      dispatch = await must(store, dispatch.id, reportDraft(message, request, dispatch), writer, input.sign);
    } else if (dispatch.lastState === 'verified') {
      // Verified earlier and never closed (the close was lost): close it, and judge this stop on its own.
      dispatch = await must(store, dispatch.id, { event: 'terminated', why: 'verified at an earlier stop; closed at this one' }, writer, input.sign);
    }
    if (dispatch.lastState !== 'reported') return { verdict: await ownWritesOnly(input), dispatch };

    // A card's worker is graded first by the gate's run of the card's frozen proof: not a PASS holds it, whatever else passes.
    const card = cardOfWorker(ctx.home, request, dispatch);
    const proof = card === null ? null : await runCardProof(ctx, workspace, request, card);
    if (proof?.kind === 'ran' && proof.verdict !== 'PASS') {
      const grade = cardGrade(dispatch, spec, proof);
      dispatch = await must(
        store,
        dispatch.id,
        { event: 'contradicted', grade, why: `the frozen proof of card ${proof.card}: ${proof.why}` },
        writer,
        input.sign,
      );
      const detail = `card ${proof.card}'s proof is ${proof.verdict}: ${proof.why} (run ${proof.runs} of the proof in force)`;
      return {
        verdict: {
          kind: 'block',
          reason: 'card_not_passing',
          findings: [],
          detail,
          tree: digestJson({ reason: 'card_not_passing', card: proof.card, at: proof.fingerprints }),
        },
        dispatch,
      };
    }

    const outcome = await gradeDispatch(ctx, workspace, spec, dispatch, {
      history,
      actor: 'hook',
      policy: { onStop: spec.gate.onStop, maxBlocks: spec.gate.maxBlocks, budgetSeconds: spec.gate.budgetSeconds },
      accept: gateAcceptance(spec),
      gate: gateStamp(request),
    });
    switch (outcome.kind) {
      case 'graded': {
        dispatch = await must(store, dispatch.id, { event: outcome.to, grade: outcome.grade, why: gradeWhy(outcome) }, writer, input.sign);
        if (outcome.to === 'verified')
          dispatch = await must(store, dispatch.id, { event: 'terminated', why: 'verified: closed by the SubagentStop gate' }, writer, input.sign);
        return { verdict: withCard(outcome.verdict, proof), dispatch };
      }
      case 'ungraded': {
        // Nothing at its tier grades its writes, and the card's proof, run by the gate, is a PASS: that grades them.
        if (proof?.kind === 'ran') {
          const grade = cardGrade(dispatch, spec, proof);
          dispatch = await must(
            store,
            dispatch.id,
            { event: 'verified', grade, why: `the frozen proof of card ${proof.card} is a PASS, run by the gate` },
            writer,
            input.sign,
          );
          dispatch = await must(store, dispatch.id, { event: 'terminated', why: 'verified: closed by the SubagentStop gate' }, writer, input.sign);
          return { verdict: withCard({ kind: 'allow', reason: 'all_pass', findings: [], detail: null, tree: null }, proof), dispatch };
        }
        // Its own writes: a subagent's stop always names it (request.agentId is set on this path).
        const agent = request.agentId;
        const wroteNothing = history.touched(agent).size === 0 && !history.wroteOpaquely(agent);
        // Closed only when there is no change to grade. A change nothing blocking grades (no check at its tier, or
        // only advisory checks) stays reported, ungraded, and holds the session's Stop: never verified, never let go.
        if (wroteNothing) {
          const why = `closed ungraded: the subagent wrote nothing, so there is no change to grade (${outcome.why})`;
          dispatch = await must(store, dispatch.id, { event: 'terminated', why }, writer, input.sign);
          return { verdict: outcome.verdict, dispatch };
        }
        return {
          verdict: {
            kind: 'allow',
            reason: 'ungraded',
            findings: [],
            detail: `dispatch ${dispatch.id}: ${outcome.why}; it stays reported, ungraded, until someone closes it`,
            tree: null,
          },
          dispatch,
        };
      }
      case 'refused':
        return { verdict: withCard(outcome.verdict, proof), dispatch };
      case 'drift':
      case 'claimant':
        throw new Error(`bug: ${outcome.kind} after the hook checked it`);
    }
  }
}

/** The dispatch's grade on the card's proof, as the gate ran it. */
function cardGrade(dispatch: Dispatch, spec: Spec, proof: Extract<CardProofOutcome, { kind: 'ran' }>): Grade {
  return { tier: dispatch.order!.tier, spec_sha256: spec.sha256, basis: 'card_proof', card: proof.card, checks: proof.checks };
}

/** The verdict with what the card's proof run did said in its detail (the one line the client shows). */
function withCard(verdict: Verdict, proof: CardProofOutcome | null): Verdict {
  if (proof === null) return verdict;
  const said =
    proof.kind === 'not_run'
      ? `card ${proof.card}: the gate did not run its proof (${proof.why})`
      : proof.closed
        ? `card ${proof.card} closed on the gate's run of its proof (PASS, ${proof.runs} run${proof.runs === 1 ? '' : 's'}, ${proof.fixes} fix${proof.fixes === 1 ? '' : 'es'})`
        : `card ${proof.card}: its proof is a PASS, and it did not close: ${proof.why}`;
  return { ...verdict, detail: verdict.detail ? `${said}; ${verdict.detail}` : said };
}

function reportDraft(message: string, request: StopRequest, dispatch: Dispatch) {
  const { claim, structured } = claimFromMessage(message);
  const transcript = dispatch.order?.prompt === null && request.transcriptPath ? readTranscriptPrompt(request.transcriptPath) : null;
  return {
    event: 'reported' as const,
    why: structured ? 'the subagent stopped; its last message is a claim' : 'the subagent stopped; its last message is its claim (free text)',
    claim,
    claim_sha256: sha256(message),
    via: 'hook' as const,
    // The hook runs as a child of the client running the agent: that process made the claim.
    claimant_pid: process.ppid,
    transcript_prompt: transcript,
  };
}

async function must(store: Dispatches, id: string, draft: Parameters<Dispatches['move']>[1], writer: Writer, sign: AppendOptions): Promise<Dispatch> {
  const moved = await store.move(id, draft, writer, sign);
  if (!moved.ok) throw new Error(`dispatch ${id}: the ${draft.event} transition was refused (${moved.error.kind}) while the gate held it`);
  return moved.value;
}

/** A dispatch the hook cannot move (damaged): the stop is still graded on the subagent's own writes, as without dispatches. */
async function ownWritesOnly(input: SubagentStopInput): Promise<Verdict> {
  const agent = input.request.agentId;
  return gradeAtTier(input.ctx, input.workspace, input.spec, {
    tier: 'lane',
    changes: { touched: input.history.touched(agent), opaque: input.history.wroteOpaquely(agent), ownWritesOnly: true, since: input.history.firstAt(agent) },
    scope: { event: 'SubagentStop', agentId: agent },
    history: input.history,
    policy: { onStop: input.spec.gate.onStop, maxBlocks: input.spec.gate.maxBlocks, budgetSeconds: input.spec.gate.budgetSeconds },
    actor: 'hook',
    accept: gateAcceptance(input.spec),
    gate: gateStamp(input.request),
  });
}
