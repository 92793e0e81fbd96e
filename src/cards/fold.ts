import { noteLoaded } from '../core/start.js';
import type { Sha256 } from '../core/digest.js';
import type {
  AuditEvent,
  CardEvent,
  CompletedEvent,
  DecisionEvent,
  OpenedEvent,
  OwnerCloseEvent,
  ProofSnapshot,
  StoppedEvent,
  VerdictEvent,
  VerifyMode,
} from './model.js';
import type { ScriptBinding } from './script.js';
import { snapshotIntact } from './snapshot.js';

noteLoaded('cards');

/** Where a card stands. Only `done` was closed on a fresh PASS. */
export type CardState = 'open' | 'claimed' | 'done' | 'owner_closed' | 'split' | 'abandoned';

/** The newest verdict of the current proof, or ungraded: never a blank. */
export type Grade = 'PASS' | 'FAIL' | 'UNKNOWN' | 'ungraded';

export interface Stored<E extends CardEvent> {
  readonly seq: number;
  readonly hash: Sha256;
  readonly body: E;
  readonly signed: boolean;
}

/** The contract as it stands after every rescope. */
export interface Contract {
  readonly goal: string;
  readonly artifact: string;
  readonly done_when: string;
  readonly lands_at: string | null;
  readonly budget_attempts: number;
  readonly budget_tokens: number | null;
}

/** A card derived from its events, oldest first. Nothing is stored but the events. */
export interface CardView {
  readonly id: string;
  readonly opened: Stored<OpenedEvent>;
  readonly contract: Contract;
  readonly verify: VerifyMode;
  /** The proof in force: the snapshot taken at open, or the owner's latest reprove. */
  readonly proof: ProofSnapshot;
  readonly state: CardState;
  /** Verify runs so far, every role's (audits after done are not attempts). */
  readonly attempts: number;
  readonly overBudget: boolean;
  readonly lastClaim: Stored<CardEvent> | null;
  /** Who holds the card (one writer per card): the newest claim's holder, until a retry frees it or the card closes. */
  readonly holder: Holder | null;
  /** The coordinator's open question (an ask decision), until the next claim or decision; null when none. */
  readonly question: Stored<DecisionEvent> | null;
  /** The guard stopped the card's worker (budget, failed calls); cleared by the next decision. */
  readonly stopped: Stored<StoppedEvent> | null;
  /** Ids of the events (a close, a question) already shown to the session that opened the card. */
  readonly answered: readonly string[];
  /** Verdicts of the proof in force, oldest first. */
  readonly verdicts: readonly Stored<VerdictEvent>[];
  readonly grade: Grade;
  readonly completed: Stored<CompletedEvent> | null;
  readonly ownerClose: Stored<OwnerCloseEvent> | null;
  readonly closing: Stored<DecisionEvent> | null;
  readonly audits: readonly Stored<AuditEvent>[];
  readonly followUps: readonly string[];
  readonly script: ScriptBinding;
  /** Every event, damaged ones included (flagged), in chain order. */
  readonly events: readonly CardEntry[];
}

/** The one writer of a card, as its claim named it. */
export interface Holder {
  readonly name: string;
  /** The claim that made it the holder. */
  readonly claim: string;
  readonly at: string;
}

/** One event as read: intact (its hash, and its signature when it has one, hold) or damaged. */
export type CardEntry =
  | { readonly intact: true; readonly seq: number; readonly hash: Sha256; readonly body: CardEvent; readonly signed: boolean }
  | { readonly intact: false; readonly seq: number; readonly hash: Sha256; readonly why: string };

export type FoldResult =
  { readonly kind: 'ok'; readonly view: CardView } | { readonly kind: 'damaged'; readonly entries: readonly CardEntry[]; readonly why: string };

/**
 * Derives a card from its events. A card with any damaged event is not
 * folded at all: an event that no longer matches its hash could have been a
 * FAIL, a claim or a decision, and nothing derived without it can be
 * believed.
 */
export function foldCard(id: string, entries: readonly CardEntry[]): FoldResult {
  const damaged = entries.find((entry) => !entry.intact);
  if (damaged && !damaged.intact) return { kind: 'damaged', entries, why: `event at seq ${damaged.seq}: ${damaged.why}` };
  const intact = entries.filter((entry): entry is Extract<CardEntry, { intact: true }> => entry.intact);
  const first = intact[0];
  if (!first || first.body.event !== 'opened') return { kind: 'damaged', entries, why: 'the card has no opened event first: its origin is missing' };
  const opened: Stored<OpenedEvent> = { ...first, body: first.body };
  if (!snapshotIntact(opened.body.proof)) return { kind: 'damaged', entries, why: 'the frozen proof does not match its own digest' };

  let contract: Contract = {
    goal: opened.body.goal,
    artifact: opened.body.artifact,
    done_when: opened.body.done_when,
    lands_at: opened.body.lands_at,
    budget_attempts: opened.body.budget_attempts,
    budget_tokens: opened.body.budget_tokens ?? null,
  };
  let proof = opened.body.proof;
  let state: CardState = 'open';
  let attempts = 0;
  let lastClaim: Stored<CardEvent> | null = null;
  let holder: Holder | null = null;
  let question: Stored<DecisionEvent> | null = null;
  let stopped: Stored<StoppedEvent> | null = null;
  let verdicts: Stored<VerdictEvent>[] = [];
  let completed: Stored<CompletedEvent> | null = null;
  let ownerClose: Stored<OwnerCloseEvent> | null = null;
  let closing: Stored<DecisionEvent> | null = null;
  const audits: Stored<AuditEvent>[] = [];
  const followUps: string[] = [];
  const answered: string[] = [];
  let bound: Sha256 | null = proof.kind === 'script' ? proof.bound_sha256 : null;
  let pending: ScriptBinding['pending'] = null;
  const closed = () => state === 'done' || state === 'owner_closed' || state === 'split' || state === 'abandoned';

  for (const entry of intact.slice(1)) {
    const body = entry.body;
    switch (body.event) {
      case 'opened':
        // A second origin for the same id is not a card anyone opened.
        return { kind: 'damaged', entries, why: `a second opened event at seq ${entry.seq}` };
      case 'claimed':
        lastClaim = entry;
        if (!closed()) state = 'claimed';
        holder = body.holder === undefined ? null : { name: body.holder, claim: body.id, at: body.at };
        question = null;
        break;
      case 'verdict':
        // Attempts are numbered as they are recorded: a hole means a verdict was deleted.
        if (body.attempt !== attempts + 1) {
          return {
            kind: 'damaged',
            entries,
            why: `the verdict at seq ${entry.seq} is attempt ${body.attempt}, but ${attempts} came before it: a verdict is missing`,
          };
        }
        attempts++;
        if (body.proof_digest === proof.digest) verdicts.push({ ...entry, body });
        if (body.script) {
          bound = body.script.sha256;
          if (body.script.binding === 'revised') pending = null;
        }
        break;
      case 'stopped':
        stopped ??= { ...entry, body };
        break;
      case 'decision':
        question = null;
        stopped = null;
        switch (body.decision) {
          case 'retry':
            // A fresh worker may claim it: the one who held it is done with it.
            holder = null;
            break;
          case 'ask':
            question = { ...entry, body };
            break;
          case 'rescope':
            contract = { ...contract, ...body.changes };
            break;
          case 'revise_script':
            pending = body.script_sha256 ? { decision: body.id, sha256: body.script_sha256 } : null;
            break;
          case 'reprove':
            if (body.proof && snapshotIntact(body.proof)) {
              proof = body.proof;
              verdicts = [];
              bound = proof.kind === 'script' ? proof.bound_sha256 : null;
              pending = null;
            } else {
              return { kind: 'damaged', entries, why: `the reprove at seq ${entry.seq} carries no intact proof` };
            }
            break;
          case 'split':
          case 'abandon':
            if (!closed()) {
              state = body.decision === 'split' ? 'split' : 'abandoned';
              closing = { ...entry, body };
            }
            break;
        }
        break;
      case 'completed': {
        // Only a PASS of the proof in force closes a card: a completed event
        // naming anything else is one no vouch wrote (complete judges first).
        const named = verdicts.find((verdict) => verdict.body.id === body.verdict_event);
        if (!named || named.body.verdict !== 'PASS') {
          return {
            kind: 'damaged',
            entries,
            why: `the completed event at seq ${entry.seq} names ${named ? `a ${named.body.verdict} verdict` : 'no verdict of the proof in force'} (${body.verdict_event}): only a PASS of the current proof closes a card`,
          };
        }
        if (!closed()) {
          state = 'done';
          completed = { ...entry, body };
        }
        break;
      }
      case 'owner_close':
        if (!closed()) {
          state = 'owner_closed';
          ownerClose = { ...entry, body };
        }
        break;
      case 'audit':
        audits.push({ ...entry, body });
        if (body.script) bound = body.script.sha256;
        break;
      case 'follow_up':
        followUps.push(body.card);
        break;
      case 'answered':
        answered.push(body.answer);
        break;
    }
  }

  const newest = verdicts[verdicts.length - 1];
  const view: CardView = {
    id,
    opened,
    contract,
    verify: proof.kind === 'script' ? 'independent' : opened.body.verify,
    proof,
    state,
    attempts,
    overBudget: !closed() && attempts >= contract.budget_attempts,
    lastClaim,
    holder: closed() ? null : holder,
    question: closed() ? null : question,
    stopped: closed() ? null : stopped,
    answered,
    verdicts,
    grade: newest ? newest.body.verdict : 'ungraded',
    completed,
    ownerClose,
    closing,
    audits,
    followUps,
    script: { bound, pending },
    events: entries,
  };
  return { kind: 'ok', view };
}

export function isClosed(state: CardState): boolean {
  return state === 'done' || state === 'owner_closed' || state === 'split' || state === 'abandoned';
}

/** Whether any of the card's events is signed: from then on, every event of it must be (store.ts reads an unsigned one after it as damaged). */
export function everSigned(view: CardView): boolean {
  return view.events.some((entry) => entry.intact && entry.signed);
}
