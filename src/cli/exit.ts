import type { ProblemCode } from '../core/problem.js';
import { unreachable } from '../core/unreachable.js';

/**
 * Exit codes, decided here and nowhere else.
 * 0: everything selected is fine. 1: something is not (FAIL, STALE, UNKNOWN;
 * `init` with nothing to propose, or a proposal it will not write).
 * 2: usage, spec or ledger problem. 3: vouch refused to edit a config file
 * (nothing was written). 4: a task card's contract refused the act (closing
 * without a fresh PASS, a role that may not, a spent budget...), or a
 * person's act was attempted inside an agent run (agent_run). 70: a bug
 * in vouch. A dispatch transition its state does not allow also exits 4;
 * 5: a dispatch's pinned spec changed (pin drift), so it was not graded.
 * 6: `show --log` found no stored log for the receipt (an old receipt, or
 * its log was removed): distinct, so a script never takes it for empty output.
 * 7: `checks --trace` has no tracer that works here (strace missing, or
 * ptrace forbidden): distinct, so a script can tell it from a bad spec.
 * 77: `vouch exec` BLOCKED the command (sysexits' EX_NOPERM); otherwise
 * exec exits with the command's own code.
 */
export const EXIT = {
  ok: 0,
  notOk: 1,
  usage: 2,
  refused: 3,
  cardRefused: 4,
  illegalTransition: 4,
  pinDrift: 5,
  logMissing: 6,
  tracerMissing: 7,
  execBlocked: 77,
  internal: 70,
} as const;

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
    case 'spec_not_allowed':
    case 'card_not_found':
    case 'card_incomplete':
    case 'card_damaged':
      return EXIT.usage;
    case 'card_no_verdict':
    case 'card_not_passing':
    case 'card_pass_before_claim':
    case 'card_claimed':
    case 'card_failed_since':
    case 'card_stale':
    case 'card_changed_since':
    case 'card_not_landed':
    case 'card_pass_not_independent':
    case 'card_pass_self_made':
    case 'card_role_refused':
    case 'card_agent_run':
    case 'agent_run':
    case 'card_over_budget':
    case 'card_closed':
    case 'card_script_changed':
    case 'card_script_unbound':
    case 'card_script_unusable':
    case 'card_proof_frozen':
    case 'card_decision_invalid':
    case 'card_decision_taken':
    case 'card_not_done':
      return EXIT.cardRefused;
    case 'nothing_detected':
    case 'proposal_scope_empty':
      return EXIT.notOk;
    case 'dispatch_not_found':
    case 'dispatch_damaged':
    case 'grader_is_claimant':
    case 'claim_invalid':
    case 'sandbox_unavailable':
    case 'manifest_invalid':
    case 'release_unreadable':
      return EXIT.usage;
    case 'illegal_transition':
      return EXIT.illegalTransition;
    case 'pin_drift':
      return EXIT.pinDrift;
    case 'log_not_found':
      return EXIT.logMissing;
    case 'tracer_unavailable':
      return EXIT.tracerMissing;
    default:
      return unreachable(code);
  }
}
