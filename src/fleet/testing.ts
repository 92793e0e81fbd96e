import type { Sha256 } from '../core/digest.js';
import type { Dispatches, TransitionDraft } from './store.js';
import type { Dispatch, Writer } from './model.js';
import { orderDraft } from './order.js';
import type { DispatchState } from './states.js';

/*
 * Drafts of every transition, for tests of the store and the fold: the
 * smallest bodies that are well-formed, so a test names only what it means.
 */

/** Every legal move, and nothing else: the table the issue states, written out independently of states.ts. */
export const LEGAL: readonly (readonly [DispatchState | null, DispatchState])[] = [
  [null, 'dispatched'],
  ['dispatched', 'reported'],
  ['dispatched', 'terminated'],
  ['reported', 'verified'],
  ['reported', 'contradicted'],
  ['reported', 'terminated'],
  ['verified', 'terminated'],
  ['contradicted', 'reported'],
  ['contradicted', 'terminated'],
];

export const legal = (from: DispatchState | null, to: DispatchState): boolean => LEGAL.some(([f, t]) => f === from && t === to);

export const WRITER: Writer = { pid: 4242, ppid: 1, actor: 'cli', client: null, host: 'test' };
const SPEC = 'a'.repeat(64) as Sha256;

export function draftOf(to: DispatchState): TransitionDraft {
  switch (to) {
    case 'dispatched':
      return orderDraft({
        prompt: { text: 'do the thing', source: 'flag' },
        tier: { tier: 'lane', source: 'declared', basis: 'declared: lane' },
        parent: null,
        card: null,
        session: null,
        agent: null,
        spec: null,
        manifest: { checks: [], git: null },
        why: 'test',
      });
    case 'reported':
      return {
        event: 'reported',
        why: 'test',
        claim: { summary: 'done', deliverables: [] },
        claim_sha256: SPEC,
        via: 'cli',
        claimant_pid: 4242,
        transcript_prompt: null,
      };
    case 'verified':
    case 'contradicted':
      return { event: to, why: 'test', grade: { tier: 'lane', spec_sha256: SPEC, basis: 'whole_tier', checks: [] } };
    case 'terminated':
      return { event: 'terminated', why: 'test' };
  }
}

/** The legal path from nothing to each state. */
export const PATH: Readonly<Record<DispatchState, readonly DispatchState[]>> = {
  dispatched: [],
  reported: ['reported'],
  verified: ['reported', 'verified'],
  contradicted: ['reported', 'contradicted'],
  terminated: ['terminated'],
};

/** A new dispatch brought to `state` through legal transitions. */
export async function dispatchIn(store: Dispatches, state: DispatchState): Promise<Dispatch> {
  let dispatch = await store.create(draftOf('dispatched') as Extract<TransitionDraft, { event: 'dispatched' }>, WRITER);
  for (const step of PATH[state]) {
    const moved = await store.move(dispatch.id, draftOf(step), WRITER);
    if (!moved.ok) throw new Error(`could not reach ${state}: ${moved.error.kind}`);
    dispatch = moved.value;
  }
  return dispatch;
}
