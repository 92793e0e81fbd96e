/**
 * Set on a receipt that reran a check inside the spec's
 * `dedupe_window_seconds` and found what the run before it found: the same
 * definition, pins, fingerprint, verdict and reason (engine/dedupe.ts). The
 * receipt is still appended in full (the ledger is append-only and
 * chained); these fields say it added no new fact, so a report can count
 * reruns instead of listing them.
 */
export interface DuplicateRecord {
  /** Id of the first receipt of the run of identical outcomes: the one this rerun repeats. */
  readonly duplicate_of?: string;
  /** Which rerun of that receipt this is: 1 for the first repeat, 2 for the next... */
  readonly dedupe_count?: number;
}
