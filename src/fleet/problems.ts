import type { Problem } from '../core/problem.js';
import { unreachable } from '../core/unreachable.js';
import type { Refusal } from './store.js';
import { nextStates } from './states.js';

/** A refused transition as a problem: what was asked, what the record says, what to do. */
export function refusalProblem(refusal: Refusal): Problem {
  switch (refusal.kind) {
    case 'not_found':
      return notFound(refusal.id);
    case 'damaged':
      return {
        code: 'dispatch_damaged',
        message: `dispatch ${refusal.dispatch.id} cannot be moved to ${refusal.to}: its record cannot be believed (${refusal.dispatch.damage ?? 'damaged'})`,
        hint: 'run `vouch audit` to see what was altered; a damaged dispatch can still be closed (`vouch dispatch close ID --reason ...`)',
      };
    case 'illegal': {
      const from = refusal.dispatch.lastState;
      const allowed = nextStates(from);
      return {
        code: 'illegal_transition',
        message: `dispatch ${refusal.dispatch.id} is ${from ?? 'not on record'}: it cannot move to ${refusal.to}`,
        expected: allowed.length > 0 ? `from ${from ?? '(new)'}: ${allowed.join(' or ')}` : `nothing: ${from ?? 'it'} is final`,
        found: refusal.to,
        hint: hintFor(from, refusal.to),
      };
    }
    default:
      return unreachable(refusal);
  }
}

export function notFound(id: string): Problem {
  return { code: 'dispatch_not_found', message: `no dispatch "${id}" in this workspace's ledger`, found: id, hint: '`vouch fleet` lists dispatches' };
}

function hintFor(from: string | null, to: string): string {
  if (from === 'terminated') return 'a terminated dispatch is closed for good; order the work again with `vouch dispatch new`';
  if (to === 'verified' || to === 'contradicted')
    return 'only a reported dispatch is graded: report its claim first (`vouch dispatch report ID --report FILE`)';
  if (to === 'reported')
    return from === 'reported'
      ? 'its claim is on record; grade it (`vouch dispatch grade ID`)'
      : 'a verified dispatch is done; close it (`vouch dispatch close ID`)';
  return '`vouch dispatch show ID` shows its transitions';
}
