import type { Sha256 } from '../../core/digest.js';
import { dispatchJson } from '../../fleet/json.js';
import type { Dispatch } from '../../fleet/model.js';
import type { ReportDispatch } from './types.js';

/** A dispatch as the fleet's JSON gives it (drift against the spec in force included), with every grade it was given. */
export function dispatchEntry(d: Dispatch, specNow: Sha256 | null, now: Date): ReportDispatch {
  return { ...dispatchJson(d, specNow, now), grades: d.grades.map((g) => ({ at: g.at, outcome: g.event })) };
}
