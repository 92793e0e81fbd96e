import { fail } from '../core/problem.js';
import { isSha256, type Sha256 } from '../core/digest.js';
import { checkGlob } from '../scope/paths.js';
import { requireWhy } from './complete.js';
import { cardSigner, nowOf, type CardContext } from './context.js';
import { requireOpen } from './closed.js';
import { everSigned, type CardView } from './fold.js';
import { cardToActOn, checkCardId, loadCardForLink } from './load.js';
import type { Ledger } from '../ledger/ledger.js';
import type { ContractChanges, DecisionEvent } from './model.js';
import { requireRole } from './rules.js';
import { readScript } from './script.js';
import { appendCardEvent } from './store.js';

/** The decisions `card decide` records, as typed on the command line. */
export const DECISIONS = ['rescope', 'revise-script', 'split', 'abandon', 'retry', 'ask'] as const;

/**
 * The decisions that leave what closes the card as it is: a retry frees the
 * card for a fresh worker, an ask records one question. A coordinator agent
 * may take them inside its run; every other decision is a person's.
 */
const ANSWERS: ReadonlySet<DecisionName> = new Set(['retry', 'ask']);
export type DecisionName = (typeof DECISIONS)[number];

export interface DecideInput {
  readonly decision: DecisionName;
  readonly why: string | undefined;
  /** rescope: the contract fields to change. */
  readonly changes: ContractChanges;
  /** rescope: a proof was named (--proof / --proof-script), which a rescope never moves. */
  readonly proofGiven: boolean;
  /** revise-script: the hash the decider reviewed; must be the script's hash now. */
  readonly sha256: string | undefined;
  /** split: the cards this one was split into. */
  readonly into: readonly string[];
  /** ask: the one question. */
  readonly question?: string | undefined;
}

/**
 * Records a coordinator's or the owner's decision about a card. None of
 * them moves the proof: rescope changes the contract's words and budget,
 * revise-script authorises exactly one new hash of the proof script, split
 * and abandon close the card (never as a pass). Changing the proof is the
 * owner's `card reprove`.
 */
export async function decideCard(ctx: CardContext, id: string, input: DecideInput): Promise<CardView> {
  if (input.proofGiven) {
    fail({
      code: 'card_proof_frozen',
      message: `a ${input.decision} does not move the proof: card ${id}'s proof was frozen when it opened`,
      hint: 'only the owner changes a proof, at a terminal outside any agent run: `vouch card reprove ID --proof ... --why TEXT`',
    });
  }
  requireRole(ctx.by, ANSWERS.has(input.decision) ? 'answer' : 'decide');
  const question = input.decision === 'ask' ? requireQuestion(input.question) : null;
  const why = input.decision === 'ask' && !input.why?.trim() ? question! : requireWhy(input.why, `decide ${input.decision}`);
  const ledger = await ctx.ledgers.write(ctx.workspace);
  const view = await cardToActOn(ctx, ledger, id);
  requireOpen(view, `decide ${input.decision} on`);
  const base = { event: 'decision' as const, why, changes: null, script_sha256: null, into: null, proof: null };
  let draft: Omit<DecisionEvent, 'v' | 'kind' | 'id' | 'at' | 'subject' | 'by'>;
  switch (input.decision) {
    case 'rescope':
      draft = { ...base, decision: 'rescope', changes: rescope(view, input.changes) };
      break;
    case 'revise-script':
      draft = { ...base, decision: 'revise_script', script_sha256: revision(ctx, view, input.sha256) };
      break;
    case 'split':
      draft = { ...base, decision: 'split', into: await splitInto(ctx, ledger, id, input.into) };
      break;
    case 'abandon':
      draft = { ...base, decision: 'abandon' };
      break;
    case 'retry':
      draft = { ...base, decision: 'retry' };
      break;
    case 'ask':
      draft = { ...base, decision: 'ask', ask: { question: question!, ...(await failureLines(ledger, view)) } };
      break;
  }
  // After the decision itself is judged: one that would change nothing says so first.
  requireOneDecisionPerEvent(ctx, view, input.decision);
  await appendCardEvent<DecisionEvent>(ledger, id, draft, { by: ctx.by, now: nowOf(ctx), sign: await cardSigner(ctx, view.proof.policy, everSigned(view)) });
  return await cardToActOn(ctx, ledger, id);
}

function invalid(message: string, hint?: string): never {
  return fail({ code: 'card_decision_invalid', message, ...(hint && { hint }) });
}

function rescope(view: CardView, changes: ContractChanges): ContractChanges {
  const out: { -readonly [K in keyof ContractChanges]: ContractChanges[K] } = {};
  for (const key of ['goal', 'done_when'] as const) {
    const value = changes[key]?.trim();
    if (value === undefined) continue;
    if (value === '') invalid(`--${key.replace('_', '-')} may not be empty`);
    if (value !== view.contract[key]) out[key] = value;
  }
  if (changes.lands_at !== undefined) {
    // An empty --lands-at clears it.
    const value = changes.lands_at?.trim() || null;
    if (value !== view.contract.lands_at) out.lands_at = value;
  }
  if (changes.artifact !== undefined) {
    const checked = checkGlob(changes.artifact);
    if (!checked.ok) invalid(`--artifact ${checked.why}`);
    if (checked.value !== view.contract.artifact) out.artifact = checked.value;
  }
  if (changes.budget_attempts !== undefined && changes.budget_attempts !== view.contract.budget_attempts) out.budget_attempts = changes.budget_attempts;
  if (Object.keys(out).length === 0) {
    invalid('the rescope changes nothing', 'name what changes: --goal, --artifact, --done-when, --lands-at or --budget-attempts');
  }
  return out;
}

function revision(ctx: CardContext, view: CardView, reviewed: string | undefined): Sha256 {
  const proof = view.proof;
  if (proof.kind !== 'script') return invalid(`card ${view.id}'s proof is checks, not a script: there is no script to revise`);
  if (view.script.bound === null) return invalid(`the proof script of card ${view.id} is not bound yet: its first verify binds it, no decision is needed`);
  const script = readScript(ctx.workspace.root, proof);
  if (!script.ok) return fail(script.error);
  const now = script.value.sha256;
  if (now === view.script.bound) return invalid(`the proof script ${proof.path} is unchanged (sha256 ${now}): there is nothing to revise`);
  if (reviewed !== undefined && (!isSha256(reviewed.toLowerCase()) || reviewed.toLowerCase() !== now)) {
    return invalid(
      `the proof script is not what was reviewed: --sha256 ${reviewed}, the file hashes to ${now} now`,
      'read the script again, then decide on the hash it has',
    );
  }
  return now;
}

async function splitInto(ctx: CardContext, ledger: Parameters<typeof loadCardForLink>[1], id: string, into: readonly string[]): Promise<string[]> {
  for (const other of into) {
    checkCardId(other);
    if (other === id) invalid('a card cannot be split into itself');
    await loadCardForLink(ctx, ledger, other);
  }
  return [...new Set(into)];
}

function requireQuestion(text: string | undefined): string {
  const question = text?.trim() ?? '';
  if (question === '')
    return fail({
      code: 'usage',
      message: 'ask needs --question TEXT: the one question the asking session gets',
      where: '--question',
      expected: 'a non-empty question',
    });
  if (question.length > 2000)
    return fail({
      code: 'usage',
      message: `the question is ${question.length} characters`,
      where: '--question',
      expected: 'one question of at most 2000 characters',
    });
  return question;
}

/**
 * The coordinator wakes on a card event and takes exactly one decision: a
 * second with no event of the card between is refused. The owner, a person,
 * is not held to it.
 */
function requireOneDecisionPerEvent(ctx: CardContext, view: CardView, decision: DecisionName): void {
  if (ctx.by.role !== 'coordinator') return;
  // An answer shown to the asking session is not a card event a coordinator wakes on.
  const last = view.events.findLast((entry) => !(entry.intact && entry.body.event === 'answered'));
  if (last?.intact && last.body.event === 'decision' && last.body.by.role === 'coordinator') {
    fail({
      code: 'card_decision_taken',
      message: `card ${view.id}'s newest event is already a decision (${last.body.decision.replace('_', '-')}, ${last.body.at}): a coordinator takes one decision per card event, and ${decision} would be a second`,
      hint: 'wait for the next event of the card (a claim, a verdict, a stop), then decide on it',
    });
  }
}

/** The last two non-empty lines the newest failing receipt of the proof printed (stderr, else stdout), and that receipt. */
async function failureLines(ledger: Ledger, view: CardView): Promise<{ failure_lines: string[]; receipt: string | null }> {
  for (const verdict of [...view.verdicts].reverse()) {
    const failing = verdict.body.receipts.find((r) => r.verdict !== 'PASS');
    if (!failing) continue;
    const found = await ledger.findReceipt(failing.receipt);
    if (found.kind !== 'found') return { failure_lines: [], receipt: failing.receipt };
    const body = found.receipt.body;
    const lines = (stream: typeof body.stderr) =>
      (stream?.excerpt ?? '')
        .split('\n')
        .map((line) => line.trimEnd())
        .filter((line) => line.trim() !== '');
    const err = lines(body.stderr);
    const chosen = err.length > 0 ? err : lines(body.stdout);
    return { failure_lines: chosen.slice(-2).map((line) => line.slice(0, 500)), receipt: failing.receipt };
  }
  return { failure_lines: [], receipt: null };
}
