import type { Ledger, ReceiptSink } from '../ledger/ledger.js';
import type { ReceiptDraft, StoredReceipt } from '../receipt/receipt.js';

/** A sink that can say what a check's previous receipt was: the ledger itself, not the verifier service's job collector. */
type LookupSink = ReceiptSink & Partial<Pick<Ledger, 'latestReceipts' | 'findReceipt'>>;

/**
 * Annotates reruns (`dedupe_window_seconds`): a receipt whose check's
 * previous receipt had the same definition, pins, fingerprint, verdict and
 * reason, within the window of the first of them, carries `duplicate_of`
 * (that first receipt) and `dedupe_count`. It is still appended in full.
 *
 * The previous receipt is one probe of the ledger's per-check index (the
 * newest receipt of the check), not a search of the check's history: a
 * rerun repeats what the run before it found, and an outcome that changed
 * in between (a flaky FAIL) is news, so the run after it starts anew.
 * Reuses (`reused_from`) ran nothing and are never counted. Two processes
 * rerunning at the same instant may both count from the same receipt: the
 * count is a note for people, never evidence.
 */
export function dedupingSink(sink: LookupSink, windowSeconds: number | undefined): ReceiptSink {
  const { latestReceipts, findReceipt } = sink;
  if (windowSeconds === undefined || windowSeconds <= 0 || latestReceipts === undefined || findReceipt === undefined) return sink;
  const lookup = { latestReceipts: latestReceipts.bind(sink), findReceipt: findReceipt.bind(sink) };
  return {
    appendReceipt: async (draft, manifest, options) => sink.appendReceipt(await annotated(lookup, draft, windowSeconds * 1000), manifest, options),
    ...(sink.listReceipts && { listReceipts: sink.listReceipts.bind(sink) }),
  };
}

async function annotated(ledger: Pick<Ledger, 'latestReceipts' | 'findReceipt'>, draft: ReceiptDraft, windowMs: number): Promise<ReceiptDraft> {
  if (draft.reused_from !== undefined) return draft;
  const previous = (await ledger.latestReceipts([draft.check_id])).get(draft.check_id);
  if (!previous || !sameOutcome(previous, draft)) return draft;
  const origin = previous.body.duplicate_of === undefined ? previous : await originOf(ledger, previous.body.duplicate_of);
  // The first receipt is gone (gc) or damaged: the window cannot be measured, so this run starts anew.
  if (origin === null) return draft;
  const since = Date.parse(draft.started_at) - Date.parse(origin.body.finished_at);
  if (!(since >= 0 && since <= windowMs)) return draft;
  return { ...draft, duplicate_of: origin.body.id, dedupe_count: (previous.body.dedupe_count ?? 0) + 1 };
}

async function originOf(ledger: Pick<Ledger, 'findReceipt'>, id: string): Promise<StoredReceipt | null> {
  const found = await ledger.findReceipt(id);
  return found.kind === 'found' && found.receipt.intact && found.receipt.body.id === id ? found.receipt : null;
}

function sameOutcome(previous: StoredReceipt, draft: ReceiptDraft): boolean {
  const body = previous.body;
  return (
    previous.intact &&
    body.reused_from === undefined &&
    body.check_id === draft.check_id &&
    body.definition_digest === draft.definition_digest &&
    body.pins_digest === draft.pins_digest &&
    body.fingerprint === draft.fingerprint &&
    body.verdict === draft.verdict &&
    body.reason === draft.reason
  );
}
