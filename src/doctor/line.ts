/** How one line of `vouch doctor` stands: in force, not set up here (nothing promised), or promised and not in force. */
export type DoctorStatus = 'ok' | 'off' | 'fail';

/** Why a line stands as it does: stable codes, the same in --json. */
export type DoctorReason =
  | 'workspace_found'
  | 'no_workspace'
  | 'spec_invalid'
  | 'trusted'
  | 'not_trusted'
  | 'pins_held'
  | 'pins_drift'
  | 'wired'
  | 'wired_no_box'
  | 'not_wired'
  | 'partly_wired'
  | 'wired_other'
  | 'wiring_lost'
  | 'wiring_unreadable'
  | 'not_applicable'
  | 'box_required_off'
  | 'keys_present'
  | 'no_keys'
  | 'signing_key_missing'
  | 'ledger_intact'
  | 'ledger_empty'
  | 'ledger_findings'
  | 'ledger_unreadable'
  | 'sandbox_ready'
  | 'sandbox_missing';

/** One line of `vouch doctor`: what it is about, how it stands, why, and the facts behind it. */
export interface DoctorLine {
  /** What the line is about: "claude-code (project)", "trust", "ledger". */
  readonly area: string;
  readonly status: DoctorStatus;
  readonly reason: DoctorReason;
  readonly detail: string;
}

/** The whole answer: ok is false when any line failed (something promised is not in force). */
export interface DoctorReport {
  readonly ok: boolean;
  readonly workspace: string | null;
  readonly lines: readonly DoctorLine[];
}
