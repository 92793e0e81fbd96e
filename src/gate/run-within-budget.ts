import type { Problem } from '../core/problem.js';
import type { EngineContext } from '../engine/context.js';
import type { Reuse } from '../engine/reuse.js';
import { verifyChecks } from '../engine/verify.js';
import type { ReceiptSink } from '../ledger/ledger.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import type { CheckDef } from '../spec/model.js';

export type BudgetRun =
  | {
      readonly kind: 'ran';
      /** Receipts of the checks that ran, by id (a check cut by the budget has an UNKNOWN/interrupted one). */
      readonly receipts: ReadonlyMap<string, StoredReceipt>;
      /** The budget ran out: checks without a receipt here were not started. */
      readonly exhausted: boolean;
    }
  | { readonly kind: 'not_allowed' }
  | { readonly kind: 'trust_error'; readonly problem: Problem };

/**
 * Runs checks through the engine, side by side as any verify runs them
 * (`serial: true` ones alone), within a time budget. When the budget runs
 * out the process group of every check still running is stopped and its
 * receipt says interrupted; the rest are not started. Every run that
 * happened is recorded, like any verify.
 */
export async function runWithinBudget(
  ctx: EngineContext,
  checks: readonly CheckDef[],
  budgetSeconds: number,
  openLedger: () => Promise<ReceiptSink>,
  outer?: AbortSignal,
  reuse?: Reuse,
): Promise<BudgetRun> {
  const budget = AbortSignal.timeout(budgetSeconds * 1000);
  const signal = outer ? AbortSignal.any([budget, outer]) : budget;
  const result = await verifyChecks(ctx, checks, { openLedger, signal, ...(reuse && { reuse }) });
  if (result.kind === 'not_allowed') return { kind: 'not_allowed' };
  if (result.kind === 'trust_error') return { kind: 'trust_error', problem: result.problem };
  const receipts = new Map(result.receipts.map((receipt) => [receipt.body.check_id, receipt]));
  return { kind: 'ran', receipts, exhausted: budget.aborted };
}
