import { fail } from '../core/problem.js';
import { closest } from '../core/suggest.js';
import type { Tier } from './fields.js';
import type { CheckDef, Spec } from './model.js';

export interface NamedOptions {
  /** Said after the refusal, e.g. why the ids must name checks of the allowed spec. */
  readonly context?: string;
  readonly hint?: string;
}

/**
 * The checks named by id, in the order given, duplicates dropped. An unknown
 * id is refused (check_not_found) with the known ones and the closest guess:
 * every front end names checks through here, so they all refuse alike.
 */
export function namedChecks(spec: Spec, ids: readonly string[], options: NamedOptions = {}): CheckDef[] {
  const known = spec.checks.map((check) => check.id);
  return [...new Set(ids)].map((id) => {
    const check = spec.checks.find((c) => c.id === id);
    if (check) return check;
    const guess = closest(id, known);
    return fail({
      code: 'check_not_found',
      message: `no check "${id}" in vouch.yaml${guess ? ` (did you mean "${guess}"?)` : ''}${options.context ? `: ${options.context}` : ''}`,
      expected: `one of: ${known.join(', ')}`,
      found: id,
      hint: options.hint ?? 'run `vouch checks` to list them',
    });
  });
}

/** The checks named on a command line (all when none), or check_not_found naming the unknown one. */
export function selectChecks(spec: Spec, ids: readonly string[], hint?: string): CheckDef[] {
  return ids.length === 0 ? [...spec.checks] : namedChecks(spec, ids, hint === undefined ? {} : { hint });
}

/**
 * The blocking checks that apply at a tier: those of that tier and the
 * untiered ones (which apply at every tier). The gate grades a stop at its
 * tier by this rule, and `vouch verify --tier` runs what it would grade.
 */
export function checksAtTier(checks: readonly CheckDef[], tier: Tier): CheckDef[] {
  return checks.filter((check) => check.block && (check.tier === null || check.tier === tier));
}
