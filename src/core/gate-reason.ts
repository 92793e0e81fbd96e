/**
 * Why the gate answered as it did. Stable codes, recorded in the ledger and
 * rendered in one exhaustive switch (render/gate.ts). None of the allow
 * reasons but `all_pass` says anything was verified.
 */
export type GateReason =
  // allow
  /** Every relevant blocking check is a fresh PASS. */
  | 'all_pass'
  /** Nothing this session changed is covered by a blocking check, and covered files match their receipts. */
  | 'nothing_relevant'
  /** The spec declares no blocking check at all, and the session changed nothing (with changes, it is `tier_uncovered`). */
  | 'no_blocking_checks'
  /** No vouch.yaml here and no vouch record of this session: nothing was promised. */
  | 'no_spec'
  /** A subagent changed files no blocking check at its tier covers: no verdict; its dispatch stays reported and holds the session's Stop. */
  | 'ungraded'
  // block
  /** Some relevant blocking check is not a fresh PASS. */
  | 'not_passing'
  /** vouch.yaml is gone, but this session was already gated by it. */
  | 'spec_missing'
  /** vouch.yaml cannot be read or is not a valid spec. */
  | 'spec_invalid'
  /** vouch.yaml is not allowed (new, or edited since it was allowed). */
  | 'spec_not_allowed'
  /** The trust record cannot be read. */
  | 'trust_unreadable'
  /** The session changed files, and no blocking check applies at this gate's tier (or the spec has none at all). */
  | 'tier_uncovered'
  /** The ledger holding this session's state cannot be used. */
  | 'ledger_unusable'
  /** The hook itself failed; a stop is never let through on an error. */
  | 'hook_error'
  /** A card's worker stopped, and the gate's run of the card's frozen proof is not a PASS: the card stays open, and the worker is held to fix it. */
  | 'card_not_passing'
  /** A subagent stopped with no final message: it has not reported, and silence is not a claim. */
  | 'no_report'
  /** vouch.yaml changed since the subagent's dispatch pinned it: not graded against a spec it could have edited. */
  | 'pin_drift'
  /** A dispatch this session ordered is half-closed: reported, graded or contradicted, and never terminated. */
  | 'dispatches_unsettled'
  /** A file the spec protects differs from what it was at the session's first hook, whatever wrote it. */
  | 'protected_changed'
  /** The gate's own wiring (hook settings, the git hook, the trust record, trusted keys) changed during the session. */
  | 'wiring_changed'
  /** vouch's record of this session under VOUCH_HOME cannot be read: it was altered, or removed while the ledger holds the session's entries. */
  | 'session_record_damaged'
  /** gate.require_box: the session ran (or is running) without the box: its client's sandbox off, fail-open, with a way out, or leaving what vouches writable. */
  | 'box_off'
  /** The ledger recorded a person's act (gc, a card's decision or forced close, a dispatch grade) during the session, whoever ran it. */
  | 'person_act_in_session'
  /** Every relevant blocking check not yet a PASS is still running in the gate's background runner: nothing for the agent to fix; the next stop picks up the result. Never counts towards max_blocks. */
  | 'checks_running'
  // escaped
  /** Blocked max_blocks times in a row with no file change: let through, recorded as unverified. */
  | 'max_blocks';
