import type { ReportDispatch } from '../../model/types.js';
import { html, type Html } from '../escape.js';
import { badge, verdictBadge, when } from '../words.js';

type Transition = ReportDispatch['transitions'][number];

function writer(t: Transition): Html {
  const w = t.writer;
  return html`<span class="mono">pid ${w.pid}</span>
    <span class="note">(${w.actor}${w.client ? ` ${w.client}` : ''}, parent ${w.ppid}, ${w.host})</span>${t.signed ? html` ${badge('intact', 'signed')}` : ''}`;
}

function claimed(d: ReportDispatch): Html {
  const c = d.claim;
  if (!c) return html`<p class="note">No report: the agent has not claimed anything${d.state === 'terminated' ? ', and it was closed' : ' yet'}.</p>`;
  return html`<pre>${c.summary}</pre>
    ${
      c.deliverables.length > 0
        ? html`<ul>
            ${c.deliverables.map((item) => html`<li>${item.what} ${badge(item.evidence === 'executed' ? 'dispatched' : 'unknown', item.evidence)}${item.how ? html` <span class="note">${item.how}</span>` : ''}</li>`)}
          </ul>`
        : html`<p class="note">no deliverables listed</p>`
    }
    <p class="note">via ${c.via}, ${when(c.at)}</p>`;
}

function verified(d: ReportDispatch): Html {
  if (d.damage) return html`<p>${badge('DAMAGED')} The record cannot be believed: ${d.damage}</p>`;
  // The grade of the current claim is the newest grade; any before it graded an earlier claim.
  const earlier = d.grade ? d.grades.slice(0, -1) : d.grades;
  const history = earlier.length > 0 ? html`<p class="note">earlier grades: ${earlier.map((g) => html`${badge(g.outcome)} ${when(g.at)} `)}</p>` : '';
  if (!d.grade) {
    return html`<p>${verdictBadge('ungraded')} ${d.claim ? 'Nothing graded this claim.' : 'Nothing to grade.'} An absent grade is not a pass.</p>
      ${history}`;
  }
  const g = d.grade;
  return html`<p>${verdictBadge(d.verdict)} at tier ${g.tier}, ${basisWords(g)}, ${when(g.at)}</p>
    <ul>
      ${g.checks.map((c) => html`<li><span class="mono">${c.id}</span> ${badge(c.status)} <span class="note">${c.reason}${c.receipt ? ` · receipt ${c.receipt}` : ''}</span></li>`)}
    </ul>
    <p class="note">against vouch.yaml <span class="mono">${g.spec_sha256.slice(0, 16)}</span></p>
    ${history}`;
}

function prompt(d: ReportDispatch): Html {
  if (d.prompt_source === null) return html``;
  if (d.prompt !== null)
    return html`<details${d.prompt.length < 600 ? html` open` : ''}><summary>prompt (${d.prompt_source})</summary><pre>${d.prompt}</pre></details>`;
  const seen = d.claim?.transcript_prompt;
  if (seen)
    return html`<details open>
      <summary>prompt, from the client's transcript of the subagent (read at its stop; not in the hook payload)</summary>
      <pre>${seen.text}</pre>
    </details>`;
  return html`<p class="note">prompt: not in the hook payload</p>`;
}

/** The pin, and DRIFT when it is not the vouch.yaml in force: what that means depends on whether the dispatch is still open. */
function pin(d: ReportDispatch): Html {
  const pinned = html`pins vouch.yaml <span class="mono">${d.spec_sha256 ? d.spec_sha256.slice(0, 16) : 'none'}</span>`;
  if (!d.drift) return pinned;
  const now = d.drift.now ? html`<span class="mono">${d.drift.now.slice(0, 16)}</span>` : 'not valid';
  const meaning = d.state === 'terminated' ? 'it was closed under its pin' : 'it cannot be graded until it is closed and dispatched again';
  return html`${pinned} <span class="drift">${badge('DRIFT')} vouch.yaml is ${now} now: ${meaning}</span>`;
}

/** The transitions in chain order, with any event that cannot be believed shown where it stands. */
function trail(d: ReportDispatch): Html[] {
  const rows = [
    ...d.transitions.map((t) => ({
      seq: t.seq,
      row: html`<tr>
        <td>${when(t.at)}</td>
        <td>${t.from ?? 'new'} → <strong>${t.to}</strong></td>
        <td>${writer(t)}</td>
        <td>${t.why}</td>
      </tr>`,
    })),
    ...d.damaged_events.map((u) => ({
      seq: u.seq,
      row: html`<tr>
        <td colspan="3">${badge('DAMAGED')} <span class="mono">seq ${u.seq} ${u.id}</span></td>
        <td>${u.why}</td>
      </tr>`,
    })),
  ];
  return rows.sort((a, b) => a.seq - b.seq).map((r) => r.row);
}

/** One dispatch: the order, the claim against what was independently verified, the transition trail, and the dispatches it ordered. */
export function renderDispatch(d: ReportDispatch, children: (d: ReportDispatch) => readonly ReportDispatch[], depth = 0): Html {
  const kids = depth < 32 ? children(d) : [];
  const ordered = d.prompt_source !== null;
  return html`<div class="dispatch v-${d.verdict}${d.drift ? ' drifted' : ''}" id="dispatch-${d.id}">
    <div class="head">
      <span class="mono"><strong>${d.id}</strong></span> ${badge(d.state)} ${verdictBadge(d.verdict)}${d.drift ? html` ${badge('DRIFT')}` : ''}
      ${d.tier ? html`<span>tier <strong>${d.tier}${d.tier_source === 'declared' ? '!' : ''}</strong></span>` : ''}
      ${d.agent ? html`<span class="note">${d.agent.client} ${d.agent.type ?? 'subagent'} ${d.agent.id}</span>` : ''}
      ${d.card ? html`<span class="note">card ${d.card}</span>` : ''} <span class="note">ordered ${when(d.created_at)}</span>
    </div>
    ${ordered ? html`<div class="note">${d.tier_basis}${d.tier_source === 'declared' ? ' (declared)' : ''} · ${pin(d)}</div>` : ''} ${prompt(d)}
    <div class="vs">
      <div>
        <h4>Claimed (the agent's own words)</h4>
        ${claimed(d)}
      </div>
      <div>
        <h4>Independently verified</h4>
        ${verified(d)}
      </div>
    </div>
    <table class="trail">
      <thead>
        <tr>
          <th>when</th>
          <th>transition</th>
          <th>written by</th>
          <th>why</th>
        </tr>
      </thead>
      <tbody>
        ${trail(d)}
      </tbody>
    </table>
    ${kids.length > 0 ? html`<div class="children">${kids.map((k) => renderDispatch(k, children, depth + 1))}</div>` : ''}
  </div>`;
}

function basisWords(g: { readonly basis: string; readonly card: string | null }): string {
  if (g.basis === 'card_proof') return `on the frozen proof of card ${g.card ?? '?'}, run by the gate`;
  return g.basis === 'own_writes' ? 'on the checks covering what its agent wrote' : 'on every blocking check of its tier';
}
