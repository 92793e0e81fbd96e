import { html, type Html } from '../escape.js';
import type { Section } from '../section.js';
import { badge, plural } from '../words.js';

/** The counts that are not zero, in the order given, as badges. */
function badges(counts: Readonly<Record<string, number>>, order: readonly { key: string; word: string; label?: string }[]): Html[] {
  return order.filter(({ key }) => (counts[key] ?? 0) > 0).map(({ key, word, label }) => badge(word, `${counts[key]} ${label ?? key}`));
}

/** At a glance: checks by status, dispatches by verdict (and drift), sessions by how they ended, and whether the ledger is intact. */
export const summarySection: Section = {
  id: 'summary',
  title: 'Summary',
  render({ summary, integrity: audit }) {
    const checks = summary.checks
      ? badges(
          summary.checks,
          ['PASS', 'FAIL', 'STALE', 'UNKNOWN'].map((key) => ({ key, word: key })),
        )
      : null;
    const verdicts = badges(
      summary.dispatches,
      ['verified', 'contradicted', 'ungraded', 'damaged'].map((key) => ({ key, word: key })),
    );
    const extra = badges(summary.dispatches, [
      { key: 'open', word: 'reported' },
      { key: 'drift', word: 'DRIFT', label: 'DRIFT' },
    ]);
    const ends = badges(summary.sessions, [
      { key: 'allowed', word: 'allowed' },
      { key: 'blocked', word: 'blocked' },
      { key: 'escaped', word: 'ESCAPED', label: 'ESCAPED' },
      { key: 'no_stop', word: 'unknown', label: 'no stop yet' },
    ]);
    const integrity =
      summary.integrity === 'nothing_recorded'
        ? badge('unknown', 'nothing recorded')
        : summary.integrity === 'intact'
          ? badge('intact')
          : badge('DAMAGED', plural(audit.findings.length, 'finding'));
    return html`<div class="tiles">
        <div class="tile">
          <h3>Checks now</h3>
          <div class="counts">
            ${checks === null ? html`<span class="note">no valid vouch.yaml: no current status</span>` : checks.length === 0 ? html`<span class="note">no checks</span>` : checks}
          </div>
        </div>
        <div class="tile">
          <h3>Dispatches</h3>
          <div class="counts">${verdicts.length === 0 ? html`<span class="note">none recorded</span>` : verdicts}${extra}</div>
        </div>
        <div class="tile">
          <h3>Agent sessions</h3>
          <div class="counts">${ends.length === 0 ? html`<span class="note">none recorded</span>` : ends}</div>
        </div>
        <div class="tile">
          <h3>Ledger</h3>
          <div class="counts">${integrity}</div>
        </div>
      </div>
      ${summary.dispatches.drift > 0 ? html`<p class="drift">${badge('DRIFT')} ${summary.dispatches.drift === 1 ? '1 dispatch' : `${summary.dispatches.drift} dispatches`} pinned a vouch.yaml other than the one in force: an open one cannot be graded until it is closed and dispatched again (see Sessions and dispatches).</p>` : ''}`;
  },
};
