import { existsSync } from 'node:fs';
import { digestJson } from '../core/digest.js';
import { nowOf } from '../core/context.js';
import type { Dispatch } from '../fleet/model.js';
import { driftSince } from '../gate/baseline.js';
import { boxVerdict } from '../gate/box-verdict.js';
import type { GateContext, StopRequest } from '../gate/context.js';
import type { GateDecision } from '../gate/decision.js';
import { gateAcceptance, gateStamp, gradeAtTier, specLevel, type Verdict } from '../gate/grade.js';
import { SessionHistory } from '../gate/history.js';
import { locateForHook, type Located } from '../gate/locate.js';
import { protectListOf } from '../guard/protect-list.js';
import { tierOf } from '../gate/relevance.js';
import { sessionWatches, watchSession, type SessionWatch } from '../gate/session-record.js';
import { LedgerError } from '../ledger/ledger.js';
import { notAllowedWords, trustState } from '../trust/trust.js';
import { workspaceAt, type Workspace } from '../workspace/find.js';
import { dispatchAtStop, holdOnUnsettled, note, sessionDispatches } from './dispatches.js';
import { lostRecord, type LostRecord } from './lost-record.js';
import { actsDuringSession } from './person-acts.js';
import { NONE, scopeOf, settle, unrecorded, type Dispatched, type StopAt } from './settle.js';

/**
 * The gate: may this agent stop? Allowed only when every blocking check
 * relevant to what the session changed is a fresh PASS the gate accepts
 * (its own run, or the pinned verifier's). Otherwise, per the spec's
 * gate.on_stop, the owed checks are run within the time budget (verify) or
 * the stop is blocked with what a person must do (require). A gate with
 * nothing to grade never reads as a pass: a spec that is missing after this
 * session was gated, invalid or not allowed blocks, and so does a protected
 * file or a piece of the gate's wiring changed since the session's first
 * hook. Every decision in a workspace is recorded in its ledger; after
 * max_blocks blocks in a row with no file change the stop is let through
 * and recorded as escaped (unverified).
 *
 * This orchestration sits above the gate (gate/: grading, relevance,
 * history, the session record) and the fleet (fleet/: a subagent's stop is
 * also its dispatch's report and grade; the session's own stop is held
 * while a dispatch it ordered is half-closed), so both depend on neither it
 * nor each other's orchestration.
 */
export async function decideStop(request: StopRequest, ctx: GateContext): Promise<GateDecision> {
  const here = locateForHook(request.cwd);
  // A session the ledger knows here whose record is gone is damage; otherwise the stop may be its first hook here, watched from now.
  const lost = here.kind === 'spec' ? await lostRecord(ctx, request.client, request.session, here.workspace) : null;
  if (here.kind === 'spec' && lost === null) await watchHere(ctx, request, here.workspace);
  const { watches, damaged } = sessionWatches(ctx.home, request.client, request.session);
  const targets = targetsOf(here, watches);
  if (targets.length === 0) {
    if (damaged.length > 0)
      return unrecorded('block', 'session_record_damaged', null, `${damaged[0]} cannot be read: vouch's record of this session was altered`);
    return unrecorded('allow', 'no_spec', null, 'no vouch.yaml in this directory or any parent');
  }
  const decisions: GateDecision[] = [];
  for (const target of targets) decisions.push(await decideIn(request, ctx, target, damaged, lost?.workspace === target.workspace.root ? lost : null));
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
  const loaded = await ctx.specs.load(workspace);
  // A spec that does not validate still protects what its protect: lists (read leniently, as the guard does).
  const globs = loaded.ok ? loaded.value.protect : (await protectListOf(workspace, true, ctx.home)).globs;
  await watchSession(ctx.home, request.client, request.session, workspace, globs, ctx.env, nowOf(ctx));
}

async function decideIn(request: StopRequest, ctx: GateContext, target: Target, damaged: readonly string[], lost: LostRecord | null): Promise<GateDecision> {
  const { workspace, watch } = target;
  const hasSpec = existsSync(workspace.specPath);
  const loaded = hasSpec ? await ctx.specs.load(workspace) : null;
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
  const at: StopAt = { request, ctx, workspace, history };
  const own: Dispatched = { open: [], own: dispatch ? note(dispatch) : null };
  const promised = history.promised || watch !== null;

  if (loaded === null) {
    if (!promised && !dispatch) return unrecorded('allow', 'no_spec', workspace.root, 'no vouch.yaml, and vouch has no record of this session');
    const missing = specLevel('spec_missing', `${workspace.specPath} was removed after vouch began gating this session`);
    if (!existsSync(workspace.root))
      return unrecorded('block', 'spec_missing', workspace.root, `${workspace.root} was removed after vouch began gating this session there`);
    return settle(at, null, missing, own);
  }
  if (!loaded.ok) {
    const first = loaded.error.more?.[0];
    const detail = `${loaded.error.message}${first ? `; ${first.where ?? ''}: ${first.message}` : ''}`;
    return settle(at, null, specLevel('spec_invalid', detail), own);
  }
  const spec = loaded.value;
  const trust = trustState(ctx.home, workspace.root, spec.sha256);
  if (!trust.ok) return settle(at, spec, specLevel('trust_unreadable', trust.error.message, spec.sha256), own);
  if (trust.value.kind !== 'allowed') {
    return settle(at, spec, specLevel('spec_not_allowed', notAllowedWords(trust.value.kind), spec.sha256), own);
  }
  const held = (await heldByResult(ctx, request, workspace, watch, damaged, lost)) ?? boxVerdict(request.client, spec, workspace, watch, ctx.env);
  if (held) return settle(at, spec, held, own);

  if (dispatch) {
    const { judgeSubagentStop } = await import('../fleet/subagent.js');
    const { signerFor } = await import('./settle.js');
    const judged = await judgeSubagentStop({ request, ctx, workspace, spec, history, dispatch, sign: await signerFor(ctx, workspace, spec) });
    return settle(at, spec, judged.verdict, { open: [], own: note(judged.dispatch) });
  }
  const subagent = request.event === 'SubagentStop';
  const agent = subagent ? request.agentId : null;
  const verdict = await gradeAtTier(ctx, workspace, spec, {
    tier: tierOf(request.event),
    changes: {
      touched: history.touched(agent),
      opaque: history.wroteOpaquely(agent),
      ownWritesOnly: subagent,
      since: subagent ? history.firstAt(agent) : (watch?.since ?? history.firstAt()),
    },
    scope: scopeOf(request),
    history,
    policy: spec.gate,
    actor: 'hook',
    accept: gateAcceptance(spec),
    gate: gateStamp(request),
    // The session's own stop hands what its budget would cut short to a background runner; a subagent's grade runs here.
    ...(!subagent && ctx.background && { background: ctx.background }),
  });
  if (subagent) return settle(at, spec, verdict, NONE);
  const open = await sessionDispatches(ctx, workspace, request, spec);
  return settle(at, spec, holdOnUnsettled(verdict, open), { open, own: null });
}

/**
 * The gate decides on results, not on the commands it saw: a protected file
 * or a piece of the gate's wiring that differs from the session's first
 * hook holds the stop, however it was written (a script, a hard link, git).
 * A record of the session that cannot be read, or that is gone while the
 * ledger holds the session's entries, holds it too; so does a person's act
 * (gc, a card's decision or forced close, a grade) the ledger recorded
 * during the session, whoever ran it.
 */
async function heldByResult(
  ctx: GateContext,
  request: StopRequest,
  workspace: Workspace,
  watch: SessionWatch | null,
  damaged: readonly string[],
  lost: LostRecord | null,
): Promise<Verdict | null> {
  if (damaged.length > 0) return specLevel('session_record_damaged', `${damaged.join(', ')} cannot be read: vouch's record of this session was altered`);
  if (lost !== null) {
    return specLevel(
      'session_record_damaged',
      `vouch's record of this session in ${lost.workspace} is gone from VOUCH_HOME/sessions, while the ledger holds ${lost.entries} entr${lost.entries === 1 ? 'y' : 'ies'} of it: it was removed, and what the session must leave as it found it can no longer be compared`,
    );
  }
  if (watch === null) return null;
  const drift = await driftSince(ctx.home, workspace, watch, ctx.env);
  if (drift.wiring.length > 0) return driftVerdict('wiring_changed', drift.wiring, watch);
  if (drift.protected.length > 0) return driftVerdict('protected_changed', drift.protected, watch);
  return personActVerdict(ctx, request, workspace, watch);
}

/** A person's act recorded since the session's first hook, or since a person last accepted the workspace (`vouch allow`). */
async function personActVerdict(ctx: GateContext, request: StopRequest, workspace: Workspace, watch: SessionWatch): Promise<Verdict | null> {
  const ledger = await ctx.ledgers.read(workspace);
  if (!ledger) return null;
  const since = watch.accepted !== undefined && watch.accepted > watch.since ? watch.accepted : watch.since;
  const acts = await actsDuringSession(ledger, request.session, new Date(since));
  if (acts.length === 0) return null;
  const shown =
    acts
      .slice(0, 5)
      .map((act) => `\`${act.command}\` at ${act.at}`)
      .join(', ') + (acts.length > 5 ? ` and ${acts.length - 5} more` : '');
  return {
    kind: 'block',
    reason: 'person_act_in_session',
    findings: [],
    detail: `${shown}, recorded since ${since}`,
    tree: digestJson({ reason: 'person_act_in_session', acts: acts.map((act) => act.seq) }),
  };
}

function driftVerdict(reason: 'wiring_changed' | 'protected_changed', paths: readonly string[], watch: SessionWatch): Verdict {
  const shown = paths.slice(0, 5).join(', ') + (paths.length > 5 ? ` and ${paths.length - 5} more` : '');
  return {
    kind: 'block',
    reason,
    findings: [],
    detail: `${shown} changed since this session's first hook (${watch.since})`,
    tree: digestJson({ reason, paths }),
  };
}

async function readHistory(ctx: GateContext, workspace: Workspace, session: string): Promise<SessionHistory> {
  const ledger = await ctx.ledgers.read(workspace);
  return ledger ? SessionHistory.from(await ledger.sessionEntries(session)) : SessionHistory.empty();
}
