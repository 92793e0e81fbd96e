import type { CheckStatus } from '../../engine/status.js';
import type { StoredReceipt } from '../../receipt/receipt.js';
import type { ReportSource } from '../source.js';
import type { ReportCheck, ReportReceipt } from './types.js';

/** One receipt as the report gives it; a damaged one only by position and its stored id, never read further. */
function receiptEntry(receipt: StoredReceipt): ReportReceipt {
  if (!receipt.intact) return { intact: false, seq: receipt.seq, id: String(receipt.body.id) };
  const body = receipt.body;
  // The ledger is read as hostile: a remote record whose key id is not a string reads as an unnamed verifier.
  const keyid = body.remote ? (body.remote as { keyid?: unknown }).keyid : undefined;
  return {
    intact: true,
    seq: receipt.seq,
    id: body.id,
    finished_at: body.finished_at,
    verdict: body.verdict,
    reason: body.reason,
    detail: body.detail,
    duration_ms: body.duration_ms,
    exit_code: body.exit_code,
    actor: body.actor,
    verifier: body.remote ? (typeof keyid === 'string' ? keyid : 'unnamed') : null,
  };
}

function now(status: CheckStatus | null | undefined): ReportCheck['now'] {
  if (!status) return null;
  return {
    status: status.status,
    reason: status.reason,
    detail: status.detail,
    receipt: status.receipt,
    recorded_at: status.recorded_at,
    verifier: status.verifier ?? null,
    agent_run: status.agentRun !== undefined,
  };
}

/** Per check: its current status against the files now, what a PASS proves, and its recorded history (newest first). */
export async function checkEntries(source: ReportSource): Promise<ReportCheck[]> {
  const [statuses, receipts] = await Promise.all([source.statuses(), source.receipts()]);
  const byCheck = new Map<string, StoredReceipt[]>();
  for (const receipt of receipts) {
    const id = receipt.intact ? receipt.body.check_id : String(receipt.body.check_id ?? '(damaged)');
    byCheck.set(id, [...(byCheck.get(id) ?? []), receipt]);
  }
  const spec = source.spec.kind === 'valid' ? source.spec.spec : null;
  const rows: ReportCheck[] = (spec?.checks ?? []).map((check, i) => {
    const history = byCheck.get(check.id) ?? [];
    return {
      id: check.id,
      declared: true,
      proves: check.proves,
      blocking: check.block,
      tier: check.tier,
      now: now(statuses?.[i]),
      runs: history.length,
      history: history.map(receiptEntry),
    };
  });
  // Checks with receipts that the spec no longer declares keep their history.
  for (const [id, history] of byCheck) {
    if (!rows.some((row) => row.id === id))
      rows.push({ id, declared: false, proves: null, blocking: null, tier: null, now: null, runs: history.length, history: history.map(receiptEntry) });
  }
  return rows;
}
