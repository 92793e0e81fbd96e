import { newId } from '../core/ids.js';
import { err, ok, type Result } from '../core/result.js';
import { signatureJudge, type SignatureJudge } from '../engine/signature-status.js';
import type { StoredEvent } from '../ledger/events.js';
import { EventConflict, type AppendOptions, type Ledger } from '../ledger/ledger.js';
import { foldDispatch, isOpen } from './fold.js';
import type { Dispatch, DispatchBody, DispatchedBody, Writer } from './model.js';
import { canMove, nextStates, type DispatchState } from './states.js';

/** Why a transition was not recorded. */
export type Refusal =
  | { readonly kind: 'not_found'; readonly id: string }
  | { readonly kind: 'illegal'; readonly dispatch: Dispatch; readonly to: DispatchState }
  | { readonly kind: 'damaged'; readonly dispatch: Dispatch; readonly to: DispatchState };

/** A transition's own fields; the store adds the event's identity, time, writer and the state it leaves. */
export type TransitionDraft = DistributiveOmit<DispatchBody, 'v' | 'kind' | 'id' | 'at' | 'subject' | 'from' | 'writer'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export type FindDispatch =
  { readonly kind: 'found'; readonly dispatch: Dispatch } | { readonly kind: 'none' } | { readonly kind: 'ambiguous'; readonly ids: readonly string[] };

const ATTEMPTS = 5;

/**
 * Dispatches, read from and appended to the ledger's subject events (kind
 * `dispatch`, subject = the dispatch id). The state machine is enforced on
 * every append against the state on record, and the append is a
 * compare-and-append: if another process moved the dispatch between the
 * read and the write, the transition is judged again against the new state.
 */
export interface DispatchesOptions {
  readonly now?: () => Date;
  /**
   * VOUCH_HOME: when given, signed transitions must verify under the keys
   * this machine trusts, and unsigned ones are damaged where signatures are
   * required (as a receipt's signature counts for `status`).
   */
  readonly home?: string;
  /** The spec in force requires signatures (so does a dispatch ordered under one). */
  readonly requireSignature?: boolean;
}

export class Dispatches {
  private readonly now: () => Date;
  private judge: SignatureJudge | undefined;

  constructor(
    private readonly ledger: Ledger,
    private readonly options: DispatchesOptions = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  async get(id: string): Promise<Dispatch | undefined> {
    const events = await this.ledger.events('dispatch', id);
    return events.length === 0 ? undefined : this.fold(id, events);
  }

  private async fold(id: string, events: readonly StoredEvent[]): Promise<Dispatch> {
    return foldDispatch(id, events, await this.distrusted(events));
  }

  /** The transitions whose signature does not hold, by seq, with why. */
  private async distrusted(events: readonly StoredEvent[]): Promise<Map<number, string>> {
    const found = new Map<number, string>();
    const home = this.options.home;
    if (home === undefined) return found;
    const first = events[0];
    const order = first?.intact && first.body.event === 'dispatched' ? (first.body as DispatchedBody) : null;
    // Once its order is signed, a dispatch stays signed: an unsigned transition after it is what
    // someone without the key would append (a hook that could not sign reads damaged too: no verdict is better than a doubtful one).
    const required = this.options.requireSignature === true || order?.require_signature === true || (order !== null && first!.signature !== null);
    for (const event of events) {
      if (!event.intact || (event.signature === null && !required)) continue;
      this.judge ??= signatureJudge(home, required);
      const problem = await this.judge(event);
      if (problem)
        found.set(
          event.seq,
          problem.reason === 'signature_missing' ? 'is unsigned where signatures are required' : `has a signature that does not hold: ${problem.detail}`,
        );
    }
    return found;
  }

  /** One dispatch by full id, or by a unique prefix of at least 6 characters. */
  async find(idOrPrefix: string): Promise<FindDispatch> {
    const exact = await this.get(idOrPrefix);
    if (exact) return { kind: 'found', dispatch: exact };
    const prefix = idOrPrefix.toLowerCase();
    if (prefix.length < 6) return { kind: 'none' };
    const ids = (await this.ledger.subjects('dispatch', Number.MAX_SAFE_INTEGER)).filter((id) => id.startsWith(prefix));
    if (ids.length > 1) return { kind: 'ambiguous', ids };
    const dispatch = ids[0] === undefined ? undefined : await this.get(ids[0]);
    return dispatch ? { kind: 'found', dispatch } : { kind: 'none' };
  }

  /**
   * Every dispatch not known to be terminated, folded: read from each
   * dispatch's newest event first, so closed ones cost one row each. A
   * newest event that cannot be believed counts as open (it is read in full,
   * and reads as damaged).
   */
  async open(): Promise<Dispatch[]> {
    const newest = await this.ledger.latestEvents('dispatch', Number.MAX_SAFE_INTEGER);
    const open = newest.filter((e) => !e.intact || e.body.event !== 'terminated').map((e) => e.body.subject);
    const dispatches = await Promise.all(open.map(async (id) => this.fold(id, await this.ledger.events('dispatch', id))));
    return dispatches.filter(isOpen).sort(newestFirst);
  }

  /** Every dispatch, newest order first. */
  async all(): Promise<Dispatch[]> {
    const ids = await this.ledger.subjects('dispatch', Number.MAX_SAFE_INTEGER);
    const dispatches = await Promise.all(ids.map(async (id) => this.fold(id, await this.ledger.events('dispatch', id))));
    return dispatches.sort(newestFirst);
  }

  /** A new dispatch: its first transition (dispatched). The id is new, so nothing can be in its way. */
  async create(draft: Extract<TransitionDraft, { event: 'dispatched' }>, writer: Writer, options: AppendOptions = {}): Promise<Dispatch> {
    const at = this.now();
    const id = newId(at.getTime());
    const result = await this.move(id, draft, writer, options);
    if (!result.ok) throw new Error(`bug: a new dispatch ${id} could not be recorded (${result.error.kind})`);
    return result.value;
  }

  /**
   * Appends one transition, if the dispatch's state on record allows it.
   * Only `terminated` is accepted on a damaged record: closing is always
   * possible, judging what cannot be believed is not.
   */
  async move(id: string, draft: TransitionDraft, writer: Writer, options: AppendOptions = {}): Promise<Result<Dispatch, Refusal>> {
    let after: string | null | undefined;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const events = await this.ledger.events('dispatch', id);
      const current = events.length === 0 ? undefined : await this.fold(id, events);
      if (draft.event !== 'dispatched' && !current) return err({ kind: 'not_found', id });
      if (current?.damage && draft.event !== 'terminated') return err({ kind: 'damaged', dispatch: current, to: draft.event });
      const from = current?.lastState ?? null;
      if (!canMove(from, draft.event)) {
        return err({ kind: 'illegal', dispatch: current ?? foldDispatch(id, []), to: draft.event });
      }
      const at = this.now();
      const body = { ...draft, v: 1, kind: 'dispatch', id: newId(at.getTime()), at: at.toISOString(), subject: id, from, writer } as DispatchBody;
      try {
        await this.ledger.appendEvent(body, {
          ...options,
          after: after !== undefined && after !== current?.lastEventId ? after : (current?.lastEventId ?? null),
        });
      } catch (error) {
        if (!(error instanceof EventConflict)) throw error;
        // Someone else moved it first: judge again against what is there now.
        // (When nothing readable changed, the newest row's id is what the
        // record could not show us: a damaged event's altered id.)
        after = error.latest;
        continue;
      }
      return ok(await this.fold(id, await this.ledger.events('dispatch', id)));
    }
    throw new Error(`dispatch ${id}: ${ATTEMPTS} writers in a row got there first; giving up`);
  }
}

/** Newest order first (ids are time-ordered, so they break ties). */
function newestFirst(a: Dispatch, b: Dispatch): number {
  return (b.createdAt ?? '').localeCompare(a.createdAt ?? '') || b.id.localeCompare(a.id);
}

/** The states a refused transition could have taken, for the message. */
export function allowedFrom(dispatch: Dispatch): readonly DispatchState[] {
  return nextStates(dispatch.lastState);
}
