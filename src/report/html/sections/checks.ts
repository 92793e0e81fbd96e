import type { ReportCheck, ReportReceipt } from '../../model/types.js';
import { duration } from '../../../render/time.js';
import { html, type Html } from '../escape.js';
import type { Section } from '../section.js';
import { badge, when } from '../words.js';

const STRIP = 30;

function stripClass(receipt: ReportReceipt): string {
  if (!receipt.intact) return 's-damaged';
  return receipt.verdict === 'PASS' ? 's-pass' : receipt.verdict === 'FAIL' ? 's-fail' : 's-unknown';
}

function strip(history: readonly ReportReceipt[]): Html {
  const recent = history.slice(0, STRIP).reverse();
  return html`<span class="strip" aria-label="last ${recent.length} verdicts, oldest first"
    >${recent.map((r) => html`<i class="${stripClass(r)}" title="${r.intact ? `${r.finished_at}: ${r.verdict} (${r.reason})` : 'DAMAGED receipt'}"></i>`)}</span
  >`;
}

/** Who recorded a receipt: its actor, and for one accepted from a verifier service, that verifier's key id (as `vouch status` shows it). */
function recordedBy(r: Extract<ReportReceipt, { intact: true }>): string {
  return r.verifier !== null ? `${r.actor} (${remoteNote(r.verifier)})` : r.actor;
}

function remoteNote(keyid: string): string {
  return `remote, verifier ${keyid.slice(0, 16)}`;
}

function historyTable(history: readonly ReportReceipt[]): Html {
  return html`<table>
    <thead>
      <tr>
        <th>finished</th>
        <th>verdict</th>
        <th>reason</th>
        <th>ran for</th>
        <th>exit</th>
        <th>by</th>
        <th>receipt</th>
      </tr>
    </thead>
    <tbody>
      ${history.map((r) =>
        r.intact
          ? html`<tr>
              <td>${when(r.finished_at)}</td>
              <td>${badge(r.verdict)}</td>
              <td>${r.reason}${r.detail ? html`<div class="note">${r.detail}</div>` : ''}</td>
              <td>${duration(r.duration_ms)}</td>
              <td>${r.exit_code ?? 'none'}</td>
              <td>${recordedBy(r)}</td>
              <td class="mono">${r.id}</td>
            </tr>`
          : html`<tr>
              <td colspan="6">${badge('DAMAGED')} its stored bytes no longer match its hash: not read</td>
              <td class="mono">${r.id}</td>
            </tr>`,
      )}
    </tbody>
  </table>`;
}

function specNote(spec: { readonly valid: boolean; readonly problem: string | null; readonly trust: string | null }): string | null {
  if (!spec.valid) return `vouch.yaml is not valid (${spec.problem}): current statuses cannot be judged`;
  if (spec.trust !== 'allowed') return `vouch.yaml is not allowed here (${spec.trust}): every check reads UNKNOWN until a person runs vouch allow`;
  return null;
}

function lastReceipt(row: ReportCheck): Html {
  const last = row.history[0];
  if (!last) return html`<span class="note">never ran</span>`;
  return html`${when(last.intact ? last.finished_at : null)}
    <div class="note">${last.intact ? `by ${recordedBy(last)}` : 'DAMAGED'}</div>`;
}

/** Per check: its current status against the files now, what a PASS proves, and its recorded history. */
export const checksSection: Section = {
  id: 'checks',
  title: 'Checks',
  render({ checks: rows, spec, window }) {
    if (rows.length === 0) return html`<p class="note">No checks declared and no receipts recorded.</p>`;
    const note = specNote(spec);
    return html`${note ? html`<p class="note">${note}</p>` : ''}
      <table>
        <thead>
          <tr>
            <th>check</th>
            <th>now</th>
            <th>why</th>
            <th>gates</th>
            <th>history</th>
            <th>last receipt</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (row) =>
              html`<tr id="check-${row.id}">
                  <td>
                    <strong class="mono">${row.id}</strong
                    >${row.proves ? html`<div class="note">PASS proves: ${row.proves}</div>` : !row.declared ? html`<div class="note">no longer in vouch.yaml</div>` : ''}
                  </td>
                  <td>
                    ${row.now ? badge(row.now.status) : badge('UNKNOWN', 'not judged')}${row.now?.verifier ? html`<div class="note">${remoteNote(row.now.verifier)}</div>` : ''}
                  </td>
                  <td>${row.now ? html`${row.now.reason}${row.now.detail ? html`<div class="note">${row.now.detail}</div>` : ''}` : ''}</td>
                  <td>${row.blocking === null ? '' : row.blocking ? `blocking${row.tier ? ` · tier ${row.tier}` : ' · every tier'}` : 'advisory'}</td>
                  <td>${strip(row.history)} <span class="note">${row.runs} run${row.runs === 1 ? '' : 's'}</span></td>
                  <td>${lastReceipt(row)}</td>
                </tr>
                <tr>
                  <td colspan="6">
                    <details>
                      <summary>history of ${row.id} (${row.runs})</summary>
                      ${row.history.length > 0 ? historyTable(row.history) : html`<p class="note">no receipt</p>`}
                    </details>
                  </td>
                </tr>`,
          )}
        </tbody>
      </table>
      ${window.receipts >= window.receipt_limit ? html`<p class="note">Histories show the newest ${window.receipt_limit} receipts of the ledger; \`vouch log ID\` lists more.</p>` : ''}`;
  },
};
