import { fail, VouchProblem, type Problem } from '../core/problem.js';
import type { Ledger, Signer } from '../ledger/ledger.js';
import { cardSigner, nowOf, requireTrustedWorkspace, type CardContext } from './context.js';
import { everSigned, isClosed, type CardView } from './fold.js';
import { cardToActOn, loadCard } from './load.js';
import type { AuditEvent, FollowUpEvent, OpenedEvent, ProofSnapshot } from './model.js';
import { requireRole } from './rules.js';
import { runProof, type ProofRun } from './run.js';
import { snapshotScript } from './snapshot.js';
import { appendCardEvent, newCardId } from './store.js';

/** How deep a chain of follow-ups may go: a card, its follow-up, and that one's. */
export const MAX_FOLLOW_UP_DEPTH = 2;

export type AuditOutcome =
  /** The proof ran, or could not run (a changed script...): either way an audit event is on the card. */
  | { readonly card: string; readonly kind: 'ran'; readonly run: ProofRun | null; readonly event: AuditEvent }
  /** Nothing could be recorded on the card (it is damaged, no key to sign with, a role that may not bind its script). */
  | { readonly card: string; readonly kind: 'refused'; readonly problem: Problem };

/**
 * Audit after done: re-runs the frozen proof of done cards and records each
 * result on the card, also when the proof cannot run at all (UNKNOWN, with
 * the reason): an audit that leaves no trace would let a done card keep
 * reading as passing. Anything but a PASS reopens nothing silently: it is
 * recorded, and opens one follow-up card linked to it (same proof), unless
 * the chain is already two deep or a follow-up is still open, which the
 * record says.
 */
export async function auditCards(ctx: CardContext, target: { readonly card: string } | { readonly all: true }): Promise<AuditOutcome[]> {
  requireRole(ctx.by, 'audit');
  await requireTrustedWorkspace(ctx);
  const ledger = await ctx.ledgers.write(ctx.workspace);
  if ('card' in target) {
    const view = await cardToActOn(ctx, ledger, target.card);
    if (view.state !== 'done') {
      fail({
        code: 'card_not_done',
        message: `card ${view.id} is ${view.state === 'owner_closed' ? 'owner_close' : view.state}, not done: audit re-checks cards closed on a PASS`,
        hint: "audit runs on done cards; `vouch card verify ID` runs an open card's proof",
      });
    }
    return [await auditOne(ctx, ledger, view)];
  }
  const outcomes: AuditOutcome[] = [];
  for (const id of (await ledger.subjects('card', Number.MAX_SAFE_INTEGER)).reverse()) {
    const loaded = await loadCard(ledger, ctx.home, id);
    if (!loaded) continue;
    if (loaded.kind === 'damaged') {
      outcomes.push({ card: id, kind: 'refused', problem: { code: 'card_damaged', message: `card ${id} is damaged (${loaded.why}); it is not audited` } });
      continue;
    }
    if (loaded.view.state === 'done') outcomes.push(await auditOne(ctx, ledger, loaded.view));
  }
  return outcomes;
}

/** Problems that say nothing about the card, only about who asks: nothing is recorded for them. */
const NOT_ABOUT_THE_CARD: ReadonlySet<string> = new Set(['card_role_refused']);

/**
 * The audit vouch runs by itself when a card closes: the frozen proof once
 * more, right after the close, whoever closed it (the role rules are for
 * who asks for an audit; this one nobody asks for). Recorded like any
 * audit, marked `on_close`; a FAIL opens the follow-up.
 */
export async function auditOnClose(ctx: CardContext, ledger: Ledger, view: CardView): Promise<AuditOutcome> {
  return auditOne(ctx, ledger, view, true);
}

async function auditOne(ctx: CardContext, ledger: Ledger, view: CardView, onClose = false): Promise<AuditOutcome> {
  let sign: Signer | undefined;
  try {
    sign = await cardSigner(ctx, view.proof.policy, everSigned(view));
  } catch (error) {
    if (error instanceof VouchProblem) return { card: view.id, kind: 'refused', problem: error.problem };
    throw error;
  }
  let run: ProofRun | null = null;
  let notRun: Problem | null = null;
  try {
    run = await runProof(ctx, view, ledger, sign);
  } catch (error) {
    if (!(error instanceof VouchProblem)) throw error;
    if (NOT_ABOUT_THE_CARD.has(error.problem.code)) return { card: view.id, kind: 'refused', problem: error.problem };
    notRun = error.problem;
  }
  const verdict = run?.verdict ?? 'UNKNOWN';
  const now = nowOf(ctx);
  const depth = view.opened.body.depth;
  const passing = verdict === 'PASS';
  const openFollowUp = passing ? undefined : await firstOpen(ctx, ledger, view.followUps);
  const followUp = !passing && depth < MAX_FOLLOW_UP_DEPTH && !openFollowUp ? newCardId() : null;
  const skipped = passing || followUp ? null : depth >= MAX_FOLLOW_UP_DEPTH ? 'depth_limit' : 'open_follow_up';
  const event = await appendCardEvent<AuditEvent>(
    ledger,
    view.id,
    {
      event: 'audit',
      proof_digest: view.proof.digest,
      verdict,
      reason: run?.reason ?? 'no_receipt',
      receipts: run?.recorded ?? [],
      script: run?.script ?? null,
      follow_up: followUp,
      follow_up_skipped: skipped,
      not_run: notRun ? { code: notRun.code, message: notRun.message } : null,
      ...(onClose && { on_close: true }),
    },
    { by: ctx.by, now, ...(sign && { sign }) },
  );
  if (followUp) {
    await appendCardEvent<OpenedEvent>(
      ledger,
      followUp,
      {
        event: 'opened',
        goal: `Follow-up of ${view.id}: ${view.contract.goal}`,
        artifact: view.contract.artifact,
        done_when: view.contract.done_when,
        lands_at: view.contract.lands_at,
        budget_attempts: view.opened.body.budget_attempts,
        verify: view.verify,
        verify_requested: view.opened.body.verify_requested,
        proof: inherited(view),
        follow_up_of: { card: view.id, audit: event.id },
        depth: depth + 1,
      },
      { by: ctx.by, now, ...(sign && { sign }) },
    );
    await appendCardEvent<FollowUpEvent>(ledger, view.id, { event: 'follow_up', card: followUp, audit: event.id }, { by: ctx.by, now, ...(sign && { sign }) });
  }
  return { card: view.id, kind: 'ran', run, event };
}

/** The follow-up runs the same frozen proof; a script stays bound to the hash its parent's runs bound. */
function inherited(view: CardView): ProofSnapshot {
  const proof = view.proof;
  if (proof.kind === 'checks') return proof;
  return snapshotScript(
    proof.policy,
    { card: view.id, name: proof.name, scope: proof.scope, timeout: proof.timeout, boundSha256: view.script.bound },
    proof.path,
  );
}

async function firstOpen(ctx: CardContext, ledger: Ledger, ids: readonly string[]): Promise<string | undefined> {
  for (const id of ids) {
    const loaded = await loadCard(ledger, ctx.home, id);
    if (loaded?.kind === 'ok' && !isClosed(loaded.view.state)) return id;
  }
  return undefined;
}
