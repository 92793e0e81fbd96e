/**
 * Set on a receipt that ran nothing because the same state was proven
 * before (engine/reuse.ts): the check's definition, pins, environment names
 * and fingerprint equal those of an earlier PASS the caller accepts. The
 * chain says what happened: this receipt names the one whose run it stands
 * on.
 */
export interface ReuseRecord {
  /** Id of the earlier PASS receipt whose run vouches for this state. */
  readonly reused_from?: string;
}
