import type { ProblemCode } from '../core/problem.js';
import { unreachable } from '../core/unreachable.js';

/**
 * Exit codes, decided here and nowhere else.
 * 0: everything selected is fine. 1: something is not (FAIL, STALE, UNKNOWN).
 * 2: usage, spec or ledger problem. 3: vouch refused to edit a config file
 * (nothing was written). 4: a dispatch transition its state does not allow.
 * 5: a dispatch's pinned spec changed (pin drift), so it was not graded.
 * 70: a bug in vouch.
 */
export const EXIT = { ok: 0, notOk: 1, usage: 2, refused: 3, illegalTransition: 4, pinDrift: 5, internal: 70 } as const;

export function exitCodeFor(code: ProblemCode): number {
  switch (code) {
    case 'usage':
    case 'workspace_not_found':
    case 'spec_unreadable':
    case 'spec_invalid':
    case 'check_not_found':
    case 'receipt_not_found':
    case 'receipt_ambiguous':
    case 'ledger_corrupt':
    case 'ledger_unreadable':
    case 'ledger_too_new':
    case 'trust_store':
    case 'spec_exists':
    case 'write_failed':
    case 'key_not_found':
    case 'key_exists':
    case 'key_invalid':
    case 'key_unsafe':
    case 'signing_key_required':
    case 'export_refused':
    case 'bundle_invalid':
    case 'dispatch_not_found':
    case 'dispatch_damaged':
    case 'grader_is_claimant':
    case 'claim_invalid':
      return EXIT.usage;
    case 'illegal_transition':
      return EXIT.illegalTransition;
    case 'pin_drift':
      return EXIT.pinDrift;
    default:
      return unreachable(code);
  }
}
