import type { GcResult, Ledger, Signer } from '../ledger/ledger.js';
import type { RetentionPolicy } from '../spec/model.js';

/** At most this many entries go in one automatic gc: its transaction, and the verify it follows, stay short. */
export const AUTO_GC_MAX_ROWS = 2_000;
/** Reading what open cards, dispatches and sessions still need may take this long; past it the gc waits for the next verify. */
export const AUTO_GC_BUDGET_MS = 2_000;
/** A session not seen stopping that wrote to the ledger this recently is taken to be running. */
export const ACTIVE_SESSION_MS = 60 * 60 * 1000;

/** What an automatic gc did: nothing due, waited (and why), or ran. */
export type AutoGc =
  | { readonly kind: 'not_due' }
  | { readonly kind: 'deferred'; readonly why: 'session_active' | 'over_budget'; readonly candidates: number; readonly detail: string }
  | { readonly kind: 'ran'; readonly candidates: number; readonly result: GcResult };

export interface AutoGcInput {
  readonly retention: RetentionPolicy;
  readonly home: string;
  readonly now: Date;
  readonly sign?: Signer;
  /** The clock the time budget is measured on (ms; default Date.now). */
  readonly clock?: () => number;
  /** The bound on entries removed (default AUTO_GC_MAX_ROWS). */
  readonly maxRows?: number;
}

/**
 * The bounded gc a person's `vouch verify` runs when the ledger is over the
 * spec's policy by at least `retention.auto` entries (as `git gc --auto`
 * runs after commands that add objects). The caller runs it only outside
 * an agent run: gc is a person's act, and its record lands in the chain
 * like `vouch gc`'s, so an agent session running meanwhile is held at its
 * stop (person_act_in_session). That is why it also waits while a session
 * not seen stopping wrote to the ledger in the last hour. It keeps what gc
 * always keeps (open cards, open dispatches' grades, unstopped sessions'
 * trails; retained.ts), removes at most AUTO_GC_MAX_ROWS entries, the
 * oldest first, and gives up for this time when reading what must stay
 * took longer than AUTO_GC_BUDGET_MS.
 */
export async function autoGc(ledger: Ledger, checkIds: readonly string[], input: AutoGcInput): Promise<AutoGc> {
  const threshold = input.retention.auto;
  if (threshold <= 0) return { kind: 'not_due' };
  const policy = { keepDays: input.retention.days, keepPerCheck: input.retention.perCheck, now: input.now };
  // Index reads that stop at the threshold (ledger.ts): a ledger within its policy costs a verify a few milliseconds.
  const candidates = await ledger.gcCandidates(policy, checkIds, threshold);
  if (candidates < threshold) return { kind: 'not_due' };
  const clock = input.clock ?? Date.now;
  const started = clock();
  // Loaded only when a gc is due: what must stay is read by the cards' and dispatches' folds, which a verify has no other use for.
  const { retainedForGc } = await import('./retained.js');
  const retain = await retainedForGc(ledger, input.home);
  const active = [...retain.lastSeen].filter(([, at]) => input.now.getTime() - at < ACTIVE_SESSION_MS).map(([session]) => session);
  if (active.length > 0) {
    const detail = `${active.length === 1 ? 'session' : 'sessions'} ${active.slice(0, 3).join(', ')}${active.length > 3 ? ` and ${active.length - 3} more` : ''} not seen stopping, active in the last hour`;
    return { kind: 'deferred', why: 'session_active', candidates, detail };
  }
  const spent = clock() - started;
  if (spent > AUTO_GC_BUDGET_MS) {
    return {
      kind: 'deferred',
      why: 'over_budget',
      candidates,
      detail: `reading what open cards, dispatches and sessions still need took ${spent} ms, more than ${AUTO_GC_BUDGET_MS} ms`,
    };
  }
  const result = await ledger.gc({ ...policy, retain, maxRemove: input.maxRows ?? AUTO_GC_MAX_ROWS, auto: true, ...(input.sign && { sign: input.sign }) });
  return { kind: 'ran', candidates, result };
}
