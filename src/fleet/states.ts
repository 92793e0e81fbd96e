import { DISPATCH_STATES, type DispatchState } from '../core/dispatch-state.js';

/**
 * A dispatch's life. Its state is its last transition; nothing is updated
 * in place.
 *
 *   dispatched → reported → verified | contradicted → terminated
 *   contradicted → reported   (the blocked agent reports again, same dispatch)
 *   any state but terminated → terminated
 *
 * `terminated` is reachable from everywhere, straight from `dispatched`
 * included: an agent that died before it reported is a thing that happens,
 * and a ledger that could not record it would lose it.
 */
export { DISPATCH_STATES, type DispatchState } from '../core/dispatch-state.js';

const NEXT: Readonly<Record<DispatchState | 'new', readonly DispatchState[]>> = {
  new: ['dispatched'],
  dispatched: ['reported', 'terminated'],
  reported: ['verified', 'contradicted', 'terminated'],
  verified: ['terminated'],
  contradicted: ['reported', 'terminated'],
  terminated: [],
};

/** Whether a dispatch in state `from` (null: not yet on record) may move to `to`. */
export function canMove(from: DispatchState | null, to: DispatchState): boolean {
  return NEXT[from ?? 'new'].includes(to);
}

/** The states a dispatch may move to next. */
export function nextStates(from: DispatchState | null): readonly DispatchState[] {
  return NEXT[from ?? 'new'];
}

export function isDispatchState(value: unknown): value is DispatchState {
  return typeof value === 'string' && (DISPATCH_STATES as readonly string[]).includes(value);
}
