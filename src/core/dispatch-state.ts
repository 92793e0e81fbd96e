/**
 * The words of a dispatch's life, shared by the fleet (which owns the
 * transitions: fleet/states.ts) and by the gate's decision, which reports
 * the dispatches a stop waits on. Vocabulary only, like status.ts: the
 * gate stands below the fleet and may not import it.
 */
export const DISPATCH_STATES = ['dispatched', 'reported', 'verified', 'contradicted', 'terminated'] as const;
export type DispatchState = (typeof DISPATCH_STATES)[number];

/** What nothing graded reads as, never a blank; `damaged` when the record cannot be believed. */
export type DispatchVerdict = 'verified' | 'contradicted' | 'ungraded' | 'damaged';
