import { html } from '../escape.js';
import type { Section } from '../section.js';
import { badge, plural } from '../words.js';

/** The whole chain walked as `vouch audit` walks it: what was altered, deleted or forged, by entry. */
export const integritySection: Section = {
  id: 'integrity',
  title: 'Ledger integrity',
  render({ integrity: audit }) {
    if (audit.state === 'nothing_recorded') return html`<p class="note">Nothing recorded yet: an empty ledger vouches for nothing.</p>`;
    const signed = Object.entries(audit.signed_by).map(([key, n]) => `${n} by ${key}`);
    const head = html`<p>
      ${audit.findings.length === 0 ? badge('intact') : badge('DAMAGED', `${audit.findings.length} finding${audit.findings.length === 1 ? '' : 's'}`)}
      ${audit.entries} ${audit.entries === 1 ? 'entry' : 'entries'} (${plural(audit.receipts, 'receipt')}),
      ${signed.length > 0 ? `signed: ${signed.join(', ')}; ` : ''}${audit.unsigned}
      unsigned${audit.head ? html`; head <span class="mono">seq ${audit.head.seq} ${audit.head.hash.slice(0, 16)}</span>` : ''}
    </p>`;
    if (audit.findings.length === 0) return head;
    return html`${head}
      <table>
        <thead>
          <tr>
            <th>seq</th>
            <th>entry</th>
            <th>kind</th>
            <th>finding</th>
            <th>detail</th>
          </tr>
        </thead>
        <tbody>
          ${audit.findings.map(
            (f) =>
              html`<tr>
                <td>${f.seq ?? ''}</td>
                <td class="mono">${f.id ?? ''}</td>
                <td>${f.kind}</td>
                <td>${badge('DAMAGED', f.code)}</td>
                <td>${f.detail}</td>
              </tr>`,
          )}
        </tbody>
      </table>`;
  },
};
