import type { CheckStatus } from '../../engine/status.js';
import type { StoredReceipt } from '../../receipt/receipt.js';
import { duration } from '../../render/time.js';
import { html, type Html } from '../html.js';
import { defineSection } from '../section.js';
import { RECEIPT_WINDOW } from '../source.js';
import { badge, when } from '../words.js';

const STRIP = 30;

interface CheckRow {
  readonly id: string;
  readonly proves: string | null;
  readonly blocking: boolean | null;
  readonly tier: string | null;
  readonly status: CheckStatus | null;
  /** Newest first. */
  readonly history: readonly StoredReceipt[];
}

function stripClass(receipt: StoredReceipt): string {
  if (!receipt.intact) return 's-damaged';
  return receipt.body.verdict === 'PASS' ? 's-pass' : receipt.body.verdict === 'FAIL' ? 's-fail' : 's-unknown';
}

function strip(history: readonly StoredReceipt[]): Html {
  const recent = history.slice(0, STRIP).reverse();
  return html`<span class="strip" aria-label="last ${recent.length} verdicts, oldest first">${recent.map(
    (r) => html`<i class="${stripClass(r)}" title="${r.intact ? `${r.body.finished_at}: ${r.body.verdict} (${r.body.reason})` : 'DAMAGED receipt'}"></i>`,
  )}</span>`;
}

/** Who recorded a receipt: its actor, and for one accepted from a verifier service, that verifier's key id (as `vouch status` shows it). */
function recordedBy(body: StoredReceipt['body']): string {
  return body.remote ? `${body.actor} (${remoteNote((body.remote as { keyid?: unknown }).keyid)})` : body.actor;
}

/** The ledger is read as hostile: a record whose key id is not a string still renders, marked as such. */
function remoteNote(keyid: unknown): string {
  return `remote, verifier ${typeof keyid === 'string' ? keyid.slice(0, 16) : 'unnamed'}`;
}

function historyTable(history: readonly StoredReceipt[]): Html {
  return html`<table><thead><tr><th>finished</th><th>verdict</th><th>reason</th><th>ran for</th><th>exit</th><th>by</th><th>receipt</th></tr></thead><tbody>${history.map((r) =>
    r.intact
      ? html`<tr><td>${when(r.body.finished_at)}</td><td>${badge(r.body.verdict)}</td><td>${r.body.reason}${r.body.detail ? html`<div class="note">${r.body.detail}</div>` : ''}</td><td>${duration(r.body.duration_ms)}</td><td>${r.body.exit_code ?? 'none'}</td><td>${recordedBy(r.body)}</td><td class="mono">${r.body.id}</td></tr>`
      : html`<tr><td colspan="6">${badge('DAMAGED')} its stored bytes no longer match its hash: not read</td><td class="mono">${r.body.id}</td></tr>`,
  )}</tbody></table>`;
}

/** Per check: its current status against the files now, what a PASS proves, and its recorded history. */
export const checksSection = defineSection({
  id: 'checks',
  title: 'Checks',
  async load(source): Promise<{ rows: CheckRow[]; specNote: string | null; windowFull: boolean }> {
    const [statuses, receipts] = await Promise.all([source.statuses(), source.receipts()]);
    const byCheck = new Map<string, StoredReceipt[]>();
    for (const receipt of receipts) {
      const id = receipt.intact ? receipt.body.check_id : String(receipt.body.check_id ?? '(damaged)');
      byCheck.set(id, [...(byCheck.get(id) ?? []), receipt]);
    }
    const spec = source.spec.kind === 'valid' ? source.spec.spec : null;
    const rows: CheckRow[] = (spec?.checks ?? []).map((check, i) => ({
      id: check.id,
      proves: check.proves,
      blocking: check.block,
      tier: check.tier,
      status: statuses?.[i] ?? null,
      history: byCheck.get(check.id) ?? [],
    }));
    // Checks with receipts that the spec no longer declares keep their history.
    for (const [id, history] of byCheck) {
      if (!rows.some((row) => row.id === id)) rows.push({ id, proves: null, blocking: null, tier: null, status: null, history });
    }
    const specNote =
      source.spec.kind === 'invalid'
        ? `vouch.yaml is not valid (${source.spec.message}): current statuses cannot be judged`
        : source.spec.trust !== 'allowed'
          ? `vouch.yaml is not allowed here (${source.spec.trust}): every check reads UNKNOWN until a person runs vouch allow`
          : null;
    return { rows, specNote, windowFull: receipts.length >= RECEIPT_WINDOW };
  },
  render({ rows, specNote, windowFull }) {
    if (rows.length === 0) return html`<p class="note">No checks declared and no receipts recorded.</p>`;
    return html`${specNote ? html`<p class="note">${specNote}</p>` : ''}
<table><thead><tr><th>check</th><th>now</th><th>why</th><th>gates</th><th>history</th><th>last receipt</th></tr></thead><tbody>
${rows.map(
  (row) => html`<tr id="check-${row.id}">
  <td><strong class="mono">${row.id}</strong>${row.proves ? html`<div class="note">PASS proves: ${row.proves}</div>` : html`<div class="note">no longer in vouch.yaml</div>`}</td>
  <td>${row.status ? badge(row.status.status) : badge('UNKNOWN', 'not judged')}${row.status?.verifier ? html`<div class="note">${remoteNote(row.status.verifier)}</div>` : ''}</td>
  <td>${row.status ? html`${row.status.reason}${row.status.detail ? html`<div class="note">${row.status.detail}</div>` : ''}` : ''}</td>
  <td>${row.blocking === null ? '' : row.blocking ? `blocking${row.tier ? ` · tier ${row.tier}` : ' · every tier'}` : 'advisory'}</td>
  <td>${strip(row.history)} <span class="note">${row.history.length} run${row.history.length === 1 ? '' : 's'}</span></td>
  <td>${row.history[0] ? html`${when(row.history[0].intact ? row.history[0].body.finished_at : null)}<div class="note">${row.history[0].intact ? `by ${recordedBy(row.history[0].body)}` : 'DAMAGED'}</div>` : html`<span class="note">never ran</span>`}</td>
</tr>
<tr><td colspan="6"><details><summary>history of ${row.id} (${row.history.length})</summary>${row.history.length > 0 ? historyTable(row.history) : html`<p class="note">no receipt</p>`}</details></td></tr>`,
)}
</tbody></table>
${windowFull ? html`<p class="note">Histories show the newest ${RECEIPT_WINDOW} receipts of the ledger; \`vouch log ID\` lists more.</p>` : ''}`;
  },
});
