import type { Dispatch, Transition } from '../../fleet/model.js';
import { html, type Html } from '../html.js';
import { badge, verdictBadge, when } from '../words.js';

function writer(t: Transition): Html {
  const w = t.writer;
  return html`<span class="mono">pid ${w.pid}</span> <span class="note">(${w.actor}${w.client ? ` ${w.client}` : ''}, parent ${w.ppid}, ${w.host})</span>${t.signed ? html` ${badge('intact', 'signed')}` : ''}`;
}

function claimed(d: Dispatch): Html {
  const c = d.claim;
  if (!c) return html`<p class="note">No report: the agent has not claimed anything${d.state === 'terminated' ? ', and it was closed' : ' yet'}.</p>`;
  return html`<pre>${c.claim.summary}</pre>
${c.claim.deliverables.length > 0 ? html`<ul>${c.claim.deliverables.map((item) => html`<li>${item.what} ${badge(item.evidence === 'executed' ? 'dispatched' : 'unknown', item.evidence)}${item.how ? html` <span class="note">${item.how}</span>` : ''}</li>`)}</ul>` : html`<p class="note">no deliverables listed</p>`}
<p class="note">via ${c.via}, ${when(c.at)}</p>`;
}

function verified(d: Dispatch): Html {
  if (d.damage) return html`<p>${badge('DAMAGED')} The record cannot be believed: ${d.damage}</p>`;
  const earlier = d.grades.filter((g) => g !== d.grade);
  const history = earlier.length > 0 ? html`<p class="note">earlier grades: ${earlier.map((g) => html`${badge(g.event)} ${when(g.at)} `)}</p>` : '';
  if (!d.grade) {
    return html`<p>${verdictBadge('ungraded')} ${d.claim ? 'Nothing graded this claim.' : 'Nothing to grade.'} An absent grade is not a pass.</p>${history}`;
  }
  const g = d.grade.grade;
  return html`<p>${verdictBadge(d.verdict)} at tier ${g.tier}, ${g.basis === 'own_writes' ? 'on the checks covering what its agent wrote' : 'on every blocking check of its tier'}, ${when(d.grade.at)}</p>
<ul>${g.checks.map((c) => html`<li><span class="mono">${c.id}</span> ${badge(c.status)} <span class="note">${c.reason}${c.receipt ? ` · receipt ${c.receipt}` : ''}</span></li>`)}</ul>
<p class="note">against vouch.yaml <span class="mono">${g.spec_sha256.slice(0, 16)}</span></p>${history}`;
}

function prompt(d: Dispatch): Html {
  const o = d.order;
  if (!o) return html``;
  if (o.prompt !== null) return html`<details${o.prompt.length < 600 ? html` open` : ''}><summary>prompt (${o.prompt_source})</summary><pre>${o.prompt}</pre></details>`;
  const seen = d.claim?.transcript_prompt;
  if (seen) return html`<details open><summary>prompt, from the client's transcript of the subagent (read at its stop; not in the hook payload)</summary><pre>${seen.text}</pre></details>`;
  return html`<p class="note">prompt: not in the hook payload</p>`;
}

/** The transitions in chain order, with any event that cannot be believed shown where it stands. */
function trail(d: Dispatch): Html[] {
  const rows = [
    ...d.transitions.map((t) => ({ seq: t.seq, row: html`<tr><td>${when(t.at)}</td><td>${t.from ?? 'new'} → <strong>${t.to}</strong></td><td>${writer(t)}</td><td>${t.why}</td></tr>` })),
    ...d.unreadable.map((u) => ({ seq: u.seq, row: html`<tr><td colspan="3">${badge('DAMAGED')} <span class="mono">seq ${u.seq} ${u.id}</span></td><td>${u.why}</td></tr>` })),
  ];
  return rows.sort((a, b) => a.seq - b.seq).map((r) => r.row);
}

/** One dispatch: the order, the claim against what was independently verified, the transition trail, and the dispatches it ordered. */
export function renderDispatch(d: Dispatch, children: (d: Dispatch) => readonly Dispatch[], depth = 0): Html {
  const o = d.order;
  const kids = depth < 32 ? children(d) : [];
  return html`<div class="dispatch v-${d.verdict}" id="dispatch-${d.id}">
  <div class="head"><span class="mono"><strong>${d.id}</strong></span> ${badge(d.state)} ${verdictBadge(d.verdict)}
    ${o ? html`<span>tier <strong>${o.tier}${o.tier_source === 'declared' ? '!' : ''}</strong></span>` : ''}
    ${o?.agent ? html`<span class="note">${o.agent.client} ${o.agent.type ?? 'subagent'} ${o.agent.id}</span>` : ''}
    ${o?.card ? html`<span class="note">card ${o.card}</span>` : ''}
    <span class="note">ordered ${when(d.createdAt)}</span></div>
  ${o ? html`<div class="note">${o.tier_basis}${o.tier_source === 'declared' ? ' (declared)' : ''} · pins vouch.yaml <span class="mono">${o.spec_sha256 ? o.spec_sha256.slice(0, 16) : 'none'}</span></div>` : ''}
  ${prompt(d)}
  <div class="vs"><div><h4>Claimed (the agent's own words)</h4>${claimed(d)}</div><div><h4>Independently verified</h4>${verified(d)}</div></div>
  <table class="trail"><thead><tr><th>when</th><th>transition</th><th>written by</th><th>why</th></tr></thead><tbody>
  ${trail(d)}
  </tbody></table>
  ${kids.length > 0 ? html`<div class="children">${kids.map((k) => renderDispatch(k, children, depth + 1))}</div>` : ''}
</div>`;
}
