import type { Sha256 } from '../core/digest.js';
import type { Ledger } from '../ledger/ledger.js';
import type { ReceiptDraft, StoredReceipt } from '../receipt/receipt.js';
import type { CheckDef } from '../spec/model.js';

/**
 * A proven state is not run again: where a check's definition, pins,
 * environment names and fingerprint equal those of an earlier PASS the
 * caller accepts, that PASS vouches for the state, and the engine records a
 * receipt naming it (`reused_from`) instead of running. The caller says
 * which PASS it accepts: the gate takes only what it would take as a fresh
 * PASS itself (its own runs, stamped by a stop it saw), never one made
 * inside the agent's run.
 */
export interface Reuse {
  /** Earlier PASS receipts of this check with this fingerprint, newest first (one index probe). */
  readonly ledger: Pick<Ledger, 'passesOf'>;
  /** Whether this earlier PASS counts for the caller. */
  readonly accept: (receipt: StoredReceipt) => boolean;
}

/** How many earlier PASSes of one state are looked at (the newest first): enough past reuses of each other. */
const CANDIDATES = 8;

/**
 * The earlier PASS that proves the state this draft describes, or null.
 * Never for `cache: false`, nor for a check with artifacts (its state
 * before a run does not include what the run makes), nor for a receipt
 * without pins (recorded before pins were kept, or under no trust record).
 */
export async function provenPass(reuse: Reuse, check: CheckDef, draft: ReceiptDraft): Promise<StoredReceipt | null> {
  if (!check.cache || check.artifacts.length > 0 || draft.pins_digest === undefined) return null;
  const found = await reuse.ledger.passesOf(check.id, draft.fingerprint, CANDIDATES);
  return found.find((earlier) => sameState(earlier, draft) && reuse.accept(earlier)) ?? null;
}

function sameState(earlier: StoredReceipt, draft: ReceiptDraft): boolean {
  const body = earlier.body;
  return (
    earlier.intact &&
    body.verdict === 'PASS' &&
    body.check_id === draft.check_id &&
    body.fingerprint === draft.fingerprint &&
    body.definition_digest === draft.definition_digest &&
    body.pins_digest === draft.pins_digest &&
    body.env_names.join('\0') === draft.env_names.join('\0')
  );
}

/** The receipt id a reuse names: the run at the origin, never another reuse. */
export function originOf(earlier: StoredReceipt): string {
  return earlier.body.reused_from ?? earlier.body.id;
}

/** One line for the reuse receipt's detail. */
export function reuseDetail(earlier: StoredReceipt, fingerprint: Sha256): string {
  return `not run: receipt ${originOf(earlier)} passed on this very state (fingerprint ${fingerprint.slice(0, 12)}, same definition, pins and environment names)`;
}
