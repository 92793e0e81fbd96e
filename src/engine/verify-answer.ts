import type { Problem } from '../core/problem.js';
import type { Ledger, ReceiptSink } from '../ledger/ledger.js';
import { environmentSuspected } from '../logs/environment-signs.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import { withheldEnvironment } from '../runner/env.js';
import type { CheckDef } from '../spec/model.js';
import type { TrustState } from '../trust/trust.js';
import type { EngineContext, VerifyEvent } from './context.js';
import { ranEntry, runOk, splitFresh, unrecordedEntry, type VerifyEntry } from './outcome.js';
import { checkStatuses, type CheckStatus } from './status.js';
import { verifyChecks } from './verify.js';

/*
 * A verify of a selection, from the question to the answer: which checks
 * need running (--stale), the runs, what a stop kept from starting, what a
 * spec not allowed means for each check, and whether the whole is ok. The
 * CLI's `vouch verify` and the MCP tool `vouch_verify` both ask this and
 * only translate what it answers, so they cannot tell the same run apart.
 */

export interface VerifyRequest {
  /** The ledger to append to (created if needed), asked for only once trust is settled; the caller's, never closed here. */
  readonly openLedger: () => Promise<ReceiptSink>;
  /** Set (`--stale`): the checks that are a fresh PASS, or an unchanged FAIL unless `rerunFailed`, are not run (outcome.ts splitFresh). */
  readonly stale?: { readonly rerunFailed: boolean; readonly openReader: () => Promise<Ledger | undefined> };
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: VerifyEvent) => void;
  /** How many checks run at once; absent: the engine's default (side-by-side.ts). */
  readonly jobs?: number;
}

export type VerifyAnswer =
  /** The trust record, or the signing key the spec selects, cannot be used: nothing ran, and nothing can be said of the checks. */
  | { readonly kind: 'trust_error'; readonly problem: Problem }
  | {
      readonly kind: 'answer';
      /** Every selected check ran or was fresh, and every selected blocking one is a PASS (outcome.ts runOk). */
      readonly ok: boolean;
      /** 'allowed', or why this spec is not: then nothing ran and every check is UNKNOWN/spec_not_allowed. */
      readonly trust: TrustState['kind'];
      /** The checks this verify was to run, in the selection's order: ran (its receipt), or not (why). */
      readonly checks: readonly VerifyEntry[];
      /** What --stale left out as already decided (a fresh PASS, an unchanged FAIL); empty without --stale. */
      readonly fresh: readonly CheckStatus[];
      /** The checks a stop (Ctrl-C, a cancelled call) kept from starting: UNKNOWN/interrupted among `checks`, nothing recorded. */
      readonly notStarted: readonly string[];
    };

/** Runs what the selection needs and answers for every selected check. */
export async function answerVerify(ctx: EngineContext, selected: readonly CheckDef[], request: VerifyRequest): Promise<VerifyAnswer> {
  let fresh: CheckStatus[] = [];
  let toRun: readonly CheckDef[] = selected;
  if (request.stale) {
    // The status projection says what is a fresh PASS: the same answer `vouch status` gives.
    const standing = await checkStatuses(ctx, selected, { openLedger: request.stale.openReader, explain: false });
    if (standing.kind === 'trust_error') return standing;
    ({ fresh, toRun } = splitFresh(selected, standing.statuses, { rerunFailed: request.stale.rerunFailed }));
    if (toRun.length === 0) return { kind: 'answer', ok: runOk(fresh, selected.length), trust: 'allowed', checks: [], fresh, notStarted: [] };
  }
  const result = await verifyChecks(ctx, toRun, {
    openLedger: request.openLedger,
    ...(request.signal && { signal: request.signal }),
    ...(request.onEvent && { onEvent: request.onEvent }),
    ...(request.jobs !== undefined && { jobs: request.jobs }),
  });
  if (result.kind === 'trust_error') return result;
  if (result.kind === 'not_allowed') {
    return {
      kind: 'answer',
      ok: false,
      trust: result.trust,
      checks: toRun.map((check) => unrecordedEntry(check, 'spec_not_allowed', null)),
      fresh,
      notStarted: [],
    };
  }
  const byCheck = new Map(result.receipts.map((receipt) => [receipt.body.check_id, receipt]));
  // Stopped before every check ran: the ones never started count as what they are, UNKNOWN, so the answer is over all that was asked for.
  const checks = toRun.map((check) => {
    const receipt = byCheck.get(check.id);
    return receipt ? verifyEntry(ctx, check, receipt) : unrecordedEntry(check, 'interrupted', 'not started: vouch was stopped first; nothing recorded');
  });
  const notStarted = toRun.filter((check) => !byCheck.has(check.id)).map((check) => check.id);
  // The fresh ones --stale left out count in the verdict over the selection, as they do in `vouch status`.
  const ok = runOk([...checks, ...fresh], selected.length);
  return { kind: 'answer', ok, trust: 'allowed', checks, fresh, notStarted };
}

/**
 * One check that ran, as the answer gives it. One that did not pass in a way
 * that reads like its environment's fault also names what it was not given
 * from the caller's environment (names, never values).
 */
export function verifyEntry(ctx: Pick<EngineContext, 'env'>, check: CheckDef, receipt: StoredReceipt): VerifyEntry {
  const entry = ranEntry(check, receipt);
  return receipt.body.ran && entry.status !== 'PASS' && environmentSuspected(receipt)
    ? { ...entry, withheld_env: withheldEnvironment(ctx.env, check.env) }
    : entry;
}
