import { html } from '../html.js';
import { defineSection } from '../section.js';
import { badge, plural } from '../words.js';

function counts<T extends string>(values: readonly T[], order: readonly T[]): [T, number][] {
  return order.map((word) => [word, values.filter((v) => v === word).length] as [T, number]).filter(([, n]) => n > 0);
}

/** At a glance: checks by status, dispatches by verdict, sessions by how they ended, and whether the ledger is intact. */
export const summarySection = defineSection({
  id: 'summary',
  title: 'Summary',
  async load(source) {
    const [statuses, dispatches, sessions, audit] = await Promise.all([source.statuses(), source.dispatches(), source.sessions(), source.audit()]);
    return { statuses, dispatches, sessions, audit };
  },
  render({ statuses, dispatches, sessions, audit }) {
    const checkCounts = statuses ? counts(statuses.map((s) => s.status), ['PASS', 'FAIL', 'STALE', 'UNKNOWN']) : [];
    const verdicts = counts(dispatches.map((d) => d.verdict), ['verified', 'contradicted', 'ungraded', 'damaged']);
    const open = dispatches.filter((d) => d.state !== 'terminated').length;
    const ends = counts(sessions.map((s) => (s.escaped ? 'ESCAPED' : s.last === 'allow' ? 'allowed' : s.last === 'block' ? 'blocked' : 'no stop yet')), ['allowed', 'blocked', 'ESCAPED', 'no stop yet']);
    const integrity = audit === null ? badge('unknown', 'nothing recorded') : audit.findings.length === 0 ? badge('intact') : badge('DAMAGED', `${plural(audit.findings.length, 'finding')}`);
    return html`<div class="tiles">
  <div class="tile"><h3>Checks now</h3><div class="counts">${statuses === null ? html`<span class="note">no valid vouch.yaml: no current status</span>` : checkCounts.length === 0 ? html`<span class="note">no checks</span>` : checkCounts.map(([w, n]) => badge(w, `${n} ${w}`))}</div></div>
  <div class="tile"><h3>Dispatches</h3><div class="counts">${verdicts.length === 0 ? html`<span class="note">none recorded</span>` : verdicts.map(([w, n]) => badge(w, `${n} ${w}`))}${open > 0 ? badge('reported', `${open} open`) : ''}</div></div>
  <div class="tile"><h3>Agent sessions</h3><div class="counts">${ends.length === 0 ? html`<span class="note">none recorded</span>` : ends.map(([w, n]) => badge(w, `${n} ${w}`))}</div></div>
  <div class="tile"><h3>Ledger</h3><div class="counts">${integrity}</div></div>
</div>`;
  },
});
