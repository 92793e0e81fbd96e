import { html } from '../html.js';
import { defineSection } from '../section.js';
import { badge } from '../words.js';

/** The whole chain walked as `vouch audit` walks it: what was altered, deleted or forged, by entry. */
export const integritySection = defineSection({
  id: 'integrity',
  title: 'Ledger integrity',
  load: (source) => source.audit(),
  render(audit) {
    if (!audit) return html`<p class="note">Nothing recorded yet: an empty ledger vouches for nothing.</p>`;
    const signed = Object.entries(audit.signedBy).map(([key, n]) => `${n} by ${key}`);
    const head = html`<p>${audit.findings.length === 0 ? badge('intact') : badge('DAMAGED', `${audit.findings.length} finding${audit.findings.length === 1 ? '' : 's'}`)}
  ${audit.entries} entries (${audit.receipts} receipts), ${signed.length > 0 ? `signed: ${signed.join(', ')}; ` : ''}${audit.unsigned} unsigned${audit.head ? html`; head <span class="mono">seq ${audit.head.seq} ${audit.head.hash.slice(0, 16)}</span>` : ''}</p>`;
    if (audit.findings.length === 0) return head;
    return html`${head}<table><thead><tr><th>seq</th><th>entry</th><th>kind</th><th>finding</th><th>detail</th></tr></thead><tbody>${audit.findings.map(
      (f) => html`<tr><td>${f.seq ?? ''}</td><td class="mono">${f.id ?? ''}</td><td>${f.kind}</td><td>${badge('DAMAGED', f.code)}</td><td>${f.detail}</td></tr>`,
    )}</tbody></table>`;
  },
});
