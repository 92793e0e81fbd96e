import type { TestCounts } from '../core/test-counts.js';
import type { Ledger } from '../ledger/ledger.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import type { CheckDef } from '../spec/model.js';
import type { Judgement } from './verdict.js';

/** How many of a check's newest receipts are read for its recent passes' skip counts. */
export const SKIP_HISTORY = 50;

/** The fewest tests a check's recent passes skipped, and the pass that skipped them. */
export interface SkipBaseline {
  readonly skipped: number;
  readonly receipt: string;
}

/** What the judgement needs of the ledger: its recent receipts of a check, when the sink can read them. */
export type ReceiptHistory = Partial<Pick<Ledger, 'listReceipts'>>;

/**
 * A PASS whose test runner says it tested nothing is no PASS. Only a PASS
 * is looked at (a FAIL stays a FAIL), and only where the runner's summary
 * was read: with no count, nothing changes, unless `min_tests` asks for one.
 *
 * - `min_tests` set: fewer tests ran (or no count was read) → too_few_tests.
 * - A blocking check whose runner ran no test (all skipped, deselected,
 *   none collected) → no_tests_ran.
 * - A blocking check that skipped more than `max_skips`, or (unset) more
 *   than the fewest skips among its recent passes of this same definition
 *   → skips_grew. The fewest, not the latest: a pass recorded with more
 *   skips (by whoever ran it) never lowers the bar; a person who means new
 *   skips says so in the spec (max_skips), which a person allows.
 */
export function judgeTests(judgement: Judgement, check: CheckDef, counts: TestCounts | null, baseline: SkipBaseline | null): Judgement {
  if (judgement.verdict !== 'PASS') return judgement;
  if (check.minTests !== undefined && (counts === null || counts.ran < check.minTests)) {
    const found = counts === null ? 'no test runner summary vouch can read was in the output' : `${describeCounts(counts)}`;
    return { verdict: 'UNKNOWN', reason: 'too_few_tests', detail: `min_tests is ${check.minTests}; ${found}` };
  }
  if (counts === null || !check.block) return judgement;
  if (counts.ran === 0) return { verdict: 'UNKNOWN', reason: 'no_tests_ran', detail: `${describeCounts(counts)}: no test ran` };
  if (check.maxSkips !== undefined) {
    return counts.skipped > check.maxSkips
      ? { verdict: 'UNKNOWN', reason: 'skips_grew', detail: `${describeCounts(counts)}; max_skips is ${check.maxSkips}` }
      : judgement;
  }
  if (baseline !== null && counts.skipped > baseline.skipped) {
    return {
      verdict: 'UNKNOWN',
      reason: 'skips_grew',
      detail: `${describeCounts(counts)}; ${baseline.skipped} skipped at receipt ${baseline.receipt}, a recent pass`,
    };
  }
  return judgement;
}

/** judgeTests, reading the check's recent passes only when a PASS with counts could need them. */
export async function judgeWithTests(judgement: Judgement, check: CheckDef, counts: TestCounts | null, history: ReceiptHistory): Promise<Judgement> {
  const needsBaseline = judgement.verdict === 'PASS' && counts !== null && counts.ran > 0;
  return judgeTests(judgement, check, counts, needsBaseline ? await skipBaseline(history, check) : null);
}

/** "pytest: 0 ran (0 passed, 0 failed), 297 skipped". */
export function describeCounts(counts: TestCounts): string {
  return `${counts.runner}: ${counts.ran} ran (${counts.passed} passed, ${counts.failed} failed), ${counts.skipped} skipped`;
}

/**
 * The fewest skips among the check's recent passes of this definition that
 * carry counts, or null when there is none (or the sink keeps no history:
 * the verifier service's job). Only intact receipts count.
 */
export async function skipBaseline(history: ReceiptHistory, check: CheckDef): Promise<SkipBaseline | null> {
  if (!history.listReceipts || !check.block || check.maxSkips !== undefined) return null;
  const recent: StoredReceipt[] = await history.listReceipts({ checkId: check.id, limit: SKIP_HISTORY });
  let best: SkipBaseline | null = null;
  for (const { body, intact } of recent) {
    if (!intact || body.verdict !== 'PASS' || body.definition_digest !== check.definitionDigest || !body.tests) continue;
    if (best === null || body.tests.skipped < best.skipped) best = { skipped: body.tests.skipped, receipt: body.id };
  }
  return best;
}
