import type { ProblemCode } from '../core/problem.js';
import { unreachable } from '../core/unreachable.js';

/**
 * Exit codes, decided here and nowhere else.
 * 0: everything selected is fine. 1: something is not (FAIL, STALE, UNKNOWN).
 * 2: usage, spec or ledger problem. 3: vouch refused to edit a config file
 * (nothing was written). 70: a bug in vouch.
 */
export const EXIT = { ok: 0, notOk: 1, usage: 2, refused: 3, internal: 70 } as const;

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
    case 'ledger_schema_behind':
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
      return EXIT.usage;
    default:
      return unreachable(code);
  }
}
