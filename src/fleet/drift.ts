import type { Sha256 } from '../core/digest.js';
import type { Dispatch } from './model.js';

/**
 * A dispatch's pin set against the vouch.yaml in force now. `now` is null
 * when there is no valid vouch.yaml now; `pinned` is null when there was
 * none when it was ordered.
 */
export interface PinDrift {
  readonly pinned: Sha256 | null;
  readonly now: Sha256 | null;
}

/**
 * The drift of a dispatch's pin, or null when its pin is the spec in force
 * (or it has no readable order to hold a pin). The same comparison the
 * checker refuses to grade on (fleet/grade.ts): an open dispatch that
 * drifted cannot be graded; a closed one was graded under an earlier spec.
 * Shown wherever a dispatch is (the board, `dispatch show`, the report), so
 * a change of the spec under running work is never silent.
 */
export function pinDrift(dispatch: Dispatch, specNow: Sha256 | null): PinDrift | null {
  const order = dispatch.order;
  if (!order) return null;
  return order.spec_sha256 === specNow ? null : { pinned: order.spec_sha256, now: specNow };
}
