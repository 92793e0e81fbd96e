import type { Ledger } from '../ledger/ledger.js';
import { isClosed, type CardEntry, type CardState, type CardView, type Grade } from './fold.js';
import { loadCard, type LoadedCard } from './load.js';
import type { CardActor, CardEvent, VerifyMode } from './model.js';
import { proofLabel } from './snapshot.js';

/**
 * The read side of task cards, for every front end (CLI board, MCP, the
 * fleet's HTML report): plain data derived from the ledger's events, no
 * formatting. A damaged card is listed as damaged, never skipped.
 */
export interface CardSummary {
  readonly id: string;
  /** open, claimed, done, owner_closed, split, abandoned; or damaged when an event no longer matches its hash or signature. */
  readonly state: CardState | 'damaged';
  /** True only for a card closed on a fresh PASS (state done). owner_close is never a pass. */
  readonly passed: boolean;
  /** The newest verdict of the proof in force, as recorded; "ungraded" when none. */
  readonly grade: Grade;
  readonly goal: string | null;
  readonly artifact: string | null;
  readonly verify: VerifyMode | null;
  /** The check ids of the proof, or "script <path>". */
  readonly proof: string | null;
  readonly attempts: number;
  readonly budget_attempts: number | null;
  readonly over_budget: boolean;
  readonly opened_at: string | null;
  readonly opened_by: CardActor | null;
  /** Time of the newest event. */
  readonly updated_at: string | null;
  readonly follow_up_of: string | null;
  readonly depth: number;
  readonly follow_ups: readonly string[];
  /** The newest audit after done: its verdict, or null when never audited. */
  readonly audit: 'PASS' | 'FAIL' | 'UNKNOWN' | null;
  /** Why the card is damaged, when it is. */
  readonly damage: string | null;
}

export interface ListOptions {
  /** Only cards not closed. */
  readonly open?: boolean;
  /** At most this many, most recently active first (default: all). */
  readonly limit?: number;
}

/** The cards of a ledger, most recently active first. `home` is VOUCH_HOME: signed events verify against its keys. */
export async function listCards(ledger: Ledger, home: string, options: ListOptions = {}): Promise<CardSummary[]> {
  const ids = await ledger.subjects('card', options.limit ?? Number.MAX_SAFE_INTEGER);
  const cards: CardSummary[] = [];
  for (const id of ids) {
    const loaded = await loadCard(ledger, home, id);
    if (!loaded) continue;
    const summary = summarize(loaded);
    if (options.open && (summary.state === 'damaged' ? false : isClosed(summary.state))) continue;
    cards.push(summary);
  }
  return cards;
}

/** One card in full (contract, frozen proof, every event), or undefined when the ledger has none by that id. */
export async function cardView(ledger: Ledger, home: string, id: string): Promise<LoadedCard | undefined> {
  return loadCard(ledger, home, id);
}

export function summarize(loaded: LoadedCard): CardSummary {
  if (loaded.kind === 'damaged') {
    const first = loaded.entries.find((entry): entry is Extract<CardEntry, { intact: true }> => entry.intact)?.body;
    const opened = first?.event === 'opened' ? first : null;
    return {
      id: loaded.id,
      state: 'damaged',
      passed: false,
      grade: 'ungraded',
      goal: opened?.goal ?? null,
      artifact: opened?.artifact ?? null,
      verify: opened?.verify ?? null,
      proof: opened ? proofLabel(opened.proof) : null,
      attempts: 0,
      budget_attempts: opened?.budget_attempts ?? null,
      over_budget: false,
      opened_at: opened?.at ?? null,
      opened_by: opened?.by ?? null,
      updated_at: null,
      follow_up_of: opened?.follow_up_of?.card ?? null,
      depth: opened?.depth ?? 0,
      follow_ups: [],
      audit: null,
      damage: loaded.why,
    };
  }
  const view = loaded.view;
  const last = view.events[view.events.length - 1];
  const lastAudit = view.audits[view.audits.length - 1];
  return {
    id: view.id,
    state: view.state,
    passed: view.state === 'done',
    grade: view.grade,
    goal: view.contract.goal,
    artifact: view.contract.artifact,
    verify: view.verify,
    proof: proofLabel(view.proof),
    attempts: view.attempts,
    budget_attempts: view.contract.budget_attempts,
    over_budget: view.overBudget,
    opened_at: view.opened.body.at,
    opened_by: view.opened.body.by,
    updated_at: last?.intact ? last.body.at : null,
    follow_up_of: view.opened.body.follow_up_of?.card ?? null,
    depth: view.opened.body.depth,
    follow_ups: view.followUps,
    audit: lastAudit?.body.verdict ?? null,
    damage: null,
  };
}

/** One event for machines: its word as `kind`, who wrote it, whether it holds, and its own fields. */
export function eventJson(entry: CardEntry): Record<string, unknown> {
  if (!entry.intact) return { seq: entry.seq, kind: 'damaged', intact: false, hash: entry.hash, why: entry.why };
  const { v: _v, kind: _kind, subject: _subject, event, prev_hash: _prev, ...rest } = entry.body as CardEvent & { prev_hash?: unknown };
  return { seq: entry.seq, kind: event, intact: true, signed: entry.signed, hash: entry.hash, ...rest };
}

/** One card for machines (`card show --json`, and every card command's --json): the contract, the frozen proof, and its events by kind. */
export function cardJson(view: CardView): Record<string, unknown> {
  return {
    id: view.id,
    state: view.state,
    passed: view.state === 'done',
    grade: view.grade,
    contract: view.contract,
    verify: view.verify,
    verify_requested: view.opened.body.verify_requested,
    proof: view.proof,
    attempts: view.attempts,
    budget_attempts: view.contract.budget_attempts,
    over_budget: view.overBudget,
    holder: view.holder,
    question: view.question?.body.ask ?? null,
    script: view.proof.kind === 'script' ? view.script : null,
    follow_up_of: view.opened.body.follow_up_of,
    depth: view.opened.body.depth,
    follow_ups: view.followUps,
    asked_from: view.opened.body.asked_from ?? null,
    events: view.events.map(eventJson),
  };
}
