/**
 * What a test runner's own summary said of one run: how many tests ran
 * (passed or failed), and how many it skipped. Read from the output by
 * runner/test-summary.ts; absent where no summary vouch knows was printed.
 */
export interface TestCounts {
  /** The runners whose summaries were read, joined by "+" (e.g. "pytest", "pytest+node:test"). */
  readonly runner: string;
  /** Tests that executed: passed + failed. Skipped, todo and expected failures are not counted as run. */
  readonly ran: number;
  readonly passed: number;
  /** Failures and errors. */
  readonly failed: number;
  /** Skipped, ignored, pending, todo and expected failures (xfail): tests that exist and were not held to passing. */
  readonly skipped: number;
}
