import type { ReportDispatch, ReportSession, ReportStop } from '../../model/types.js';
import { html, type Html } from '../escape.js';
import type { Section } from '../section.js';
import { badge, plural, when } from '../words.js';
import { renderDispatch } from './dispatch.js';

/** The most of a stop's claim the sessions table shows. */
const CLAIM_SHOWN = 280;

/** A run that ordered work: an agent session (as the gate saw it), or the command line. */
interface Run {
  readonly key: string;
  readonly session: ReportSession | null;
  readonly sessionId: string | null;
  readonly roots: readonly ReportDispatch[];
  readonly latest: string;
}

function sessionWord(s: ReportSession): Html {
  switch (s.end) {
    case 'escaped':
      return badge('ESCAPED', 'ESCAPED (stopped unverified)');
    case 'allowed':
      return badge('allowed');
    case 'blocked':
      return badge('blocked');
    case 'no_stop':
      return badge('unknown', 'no stop yet');
  }
}

function stops(s: ReportSession): Html {
  if (s.stops.length === 0) return html`<p class="note">The agent never claimed done (no stop).</p>`;
  return html`<p class="note">The agent claimed done ${plural(s.stops.length, 'time')}; the gate's independent answer each time:</p>
    <table>
      <thead>
        <tr>
          <th>when</th>
          <th>stop</th>
          <th>the agent said (its claim)</th>
          <th>answer</th>
          <th>reason</th>
          <th>checks</th>
        </tr>
      </thead>
      <tbody>
        ${s.stops.map(
          (g) =>
            html`<tr>
              <td>${when(g.at)}</td>
              <td>${g.event}${g.agent_id ? html` <span class="note">${g.agent_id}</span>` : ''}</td>
              <td class="claim">${claimText(g.claim)}</td>
              <td>${badge(g.decision, g.decision === 'escaped' ? 'ESCAPED' : g.decision)}</td>
              <td>${g.reason}</td>
              <td>${g.checks.map((c) => html`<span class="mono">${c.id}</span> ${badge(c.status)} `)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

/** The claim at a stop, shortened for the table; its words are the agent's, never evidence. */
function claimText(claim: ReportStop['claim']): Html | string {
  if (claim === null) return html`<span class="note">not recorded</span>`;
  const cut = claim.text.length > CLAIM_SHOWN ? `${claim.text.slice(0, CLAIM_SHOWN)}…` : claim.truncated ? `${claim.text}…` : claim.text;
  return cut;
}

/** Per session and dispatch: what was claimed against what was independently verified, dispatches under the run that ordered them. */
export const runsSection: Section = {
  id: 'runs',
  title: 'Sessions and dispatches',
  render({ sessions, dispatches, window }) {
    const ids = new Set(dispatches.map((d) => d.id));
    const byParent = new Map<string, ReportDispatch[]>();
    for (const d of dispatches) {
      const parent = d.parent;
      if (parent && ids.has(parent)) byParent.set(parent, [...(byParent.get(parent) ?? []), d]);
    }
    const children = (d: ReportDispatch) => [...(byParent.get(d.id) ?? [])].reverse();
    const roots = dispatches.filter((d) => !(d.parent && ids.has(d.parent)));

    const runs = new Map<string, Run>();
    const runOf = (key: string, session: ReportSession | null, sessionId: string | null): Run => {
      const run = runs.get(key) ?? { key, session, sessionId, roots: [], latest: '' };
      runs.set(key, run);
      return run;
    };
    for (const s of sessions) runOf(`s:${s.id}`, s, s.id);
    for (const d of roots) {
      const session = d.session;
      // No order (its event is missing or damaged): no prompt source either.
      const key = d.prompt_source === null ? 'damaged' : session !== null ? `s:${session}` : 'cli';
      const run = runOf(key, sessions.find((s) => s.id === session) ?? null, session);
      runs.set(key, { ...run, roots: [...run.roots, d] });
    }
    const latest = (run: Run) => [run.session?.last_at ?? '', ...run.roots.map((d) => d.updated_at ?? '')].sort().pop() ?? '';
    const ordered = [...runs.values()].map((run) => ({ ...run, latest: latest(run) })).sort((a, b) => b.latest.localeCompare(a.latest));
    if (ordered.length === 0) return html`<p class="note">No agent session and no dispatch recorded yet.</p>`;

    return html`${ordered.map((run) => {
      const tree =
        run.roots.length > 0
          ? html`<h3>Dispatched ${run.key === 'cli' ? 'from the command line' : run.key === 'damaged' ? '' : 'by this session'} (${run.roots.length})</h3>
              ${[...run.roots].reverse().map((d) => renderDispatch(d, children))}`
          : '';
      if (run.key === 'cli')
        return html`<div class="run">
          <div class="head"><span class="id">Command line</span> <span class="note">dispatches ordered with vouch dispatch new, with no session</span></div>
          ${tree}
        </div>`;
      if (run.key === 'damaged')
        return html`<div class="run">
          <div class="head"><span class="id">Dispatches whose order cannot be read</span> ${badge('DAMAGED')}</div>
          ${tree}
        </div>`;
      const s = run.session;
      return html`<div class="run" id="session-${run.sessionId}">
        <div class="head">
          <span class="id">session <span class="mono">${run.sessionId}</span></span> ${s ? sessionWord(s) : badge('unknown', 'not gated here')}
          ${s ? html`<span class="note">${s.client ?? ''} · ${plural(s.blocks, 'block')} · ${plural(s.tool_calls, 'tool call')} · ${when(s.first_at)} to ${when(s.last_at)}</span>${s.damaged_entries > 0 ? badge('DAMAGED', `${s.damaged_entries} damaged entries`) : ''}` : ''}
        </div>
        ${s ? stops(s) : html`<p class="note">No gate record of this session in this workspace.</p>`} ${tree}
      </div>`;
    })}
    ${window.sessions >= window.session_limit ? html`<p class="note">The ${window.session_limit} most recently active sessions are shown; \`vouch sessions\` lists more.</p>` : ''}`;
  },
};
