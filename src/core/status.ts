/** The four answers vouch gives about a check: PASS, FAIL, UNKNOWN, STALE (README, "The four statuses"). */
export type Status = 'PASS' | 'FAIL' | 'UNKNOWN' | 'STALE';

/** The verdict recorded in a receipt: what one execution showed. */
export type Verdict = 'PASS' | 'FAIL' | 'UNKNOWN';

/**
 * Stable reason codes, shown in `--json` and in every front end. A code is
 * never reused for another meaning; new situations get new codes.
 */
export type Reason =
  // PASS
  | 'ok'
  // FAIL
  | 'exit_code'
  | 'signal'
  | 'expectation_unmet'
  // UNKNOWN
  | 'no_receipt'
  | 'timeout'
  | 'spawn_error'
  | 'interrupted'
  | 'scope_empty'
  | 'path_escape'
  | 'cwd_invalid'
  | 'changed_during_run'
  | 'changed_during_hash'
  | 'scope_unreadable'
  | 'artifact_missing'
  | 'output_truncated'
  | 'spec_not_allowed'
  | 'ledger_corrupt'
  | 'signature_missing'
  | 'signature_invalid'
  | 'signature_untrusted'
  | 'remote_unavailable'
  | 'remote_refused'
  | 'remote_unverified'
  | 'remote_required'
  | 'not_gate_run'
  | 'executable_changed'
  | 'tool_config_changed'
  | 'pins_mismatch'
  | 'job_bound'
  | 'input_changed'
  | 'sandbox_unavailable'
  | 'scope_too_large'
  | 'no_tests_ran'
  | 'too_few_tests'
  | 'skips_grew'
  | 'work_tree_differs'
  // STALE
  | 'fingerprint_changed'
  | 'definition_changed';

export const REASONS = [
  'ok',
  'exit_code',
  'signal',
  'expectation_unmet',
  'no_receipt',
  'timeout',
  'spawn_error',
  'interrupted',
  'scope_empty',
  'path_escape',
  'cwd_invalid',
  'changed_during_run',
  'changed_during_hash',
  'scope_unreadable',
  'artifact_missing',
  'output_truncated',
  'spec_not_allowed',
  'ledger_corrupt',
  'signature_missing',
  'signature_invalid',
  'signature_untrusted',
  'remote_unavailable',
  'remote_refused',
  'remote_unverified',
  'remote_required',
  'not_gate_run',
  'executable_changed',
  'tool_config_changed',
  'pins_mismatch',
  'job_bound',
  'input_changed',
  'sandbox_unavailable',
  'scope_too_large',
  'no_tests_ran',
  'too_few_tests',
  'skips_grew',
  'work_tree_differs',
  'fingerprint_changed',
  'definition_changed',
] as const satisfies readonly Reason[];

/**
 * REASONS lists every Reason, each once: a reason added to the union but
 * not to the list (which the MCP schema and the JSON Schema are built from)
 * does not compile.
 */
type Unlisted = Exclude<Reason, (typeof REASONS)[number]>;
export const EVERY_REASON_LISTED: [Unlisted] extends [never] ? true : { readonly unlisted: Unlisted } = true;
