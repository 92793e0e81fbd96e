import { cardView, listCards, type CardSummary } from '../../cards/read.js';
import type { DecisionEvent } from '../../cards/model.js';
import { html, type Html } from '../html.js';
import { defineSection } from '../section.js';
import { badge, when } from '../words.js';

interface CardRow {
  readonly card: CardSummary;
  /** Its recorded decisions, oldest first; damaged events are not read. */
  readonly decisions: readonly DecisionEvent[];
  readonly ownerClose: string | null;
}

function decisionLine(d: DecisionEvent): Html {
  const what = d.decision === 'split' && d.into ? ` into ${d.into.join(', ')}` : '';
  return html`<li>${when(d.at)} <strong>${d.decision}</strong>${what} <span class="note">by ${d.by.role} (${d.by.via}${d.by.agent ? `, ${d.by.agent}` : ''})</span>: ${d.why}</li>`;
}

/** Task cards with their decisions, from the cards read API. */
export const cardsSection = defineSection({
  id: 'cards',
  title: 'Task cards',
  async load(source): Promise<CardRow[]> {
    const ledger = source.ledger;
    if (!ledger) return [];
    const cards = await listCards(ledger, source.home);
    return Promise.all(
      cards.map(async (card) => {
        const loaded = await cardView(ledger, source.home, card.id);
        const view = loaded?.kind === 'ok' ? loaded.view : null;
        const decisions = view ? view.events.flatMap((e) => (e.intact && e.body.event === 'decision' ? [e.body] : [])) : [];
        return { card, decisions, ownerClose: view?.ownerClose?.body.why ?? null };
      }),
    );
  },
  render(rows) {
    if (rows.length === 0) return null;
    return html`<table><thead><tr><th>card</th><th>state</th><th>grade</th><th>goal</th><th>proof</th><th>attempts</th><th>decisions</th></tr></thead><tbody>${rows.map(
      ({ card, decisions, ownerClose }) => html`<tr id="card-${card.id}">
  <td class="mono">${card.id}</td>
  <td>${badge(card.state === 'done' ? 'verified' : card.state === 'damaged' ? 'DAMAGED' : card.state === 'owner_closed' ? 'ungraded' : 'reported', card.state)}${card.damage ? html`<div class="note">${card.damage}</div>` : ''}</td>
  <td>${badge(card.grade)}${card.audit ? html` <span class="note">audit</span> ${badge(card.audit)}` : ''}</td>
  <td>${card.goal ?? ''}${card.artifact ? html`<div class="note">artifact: ${card.artifact}</div>` : ''}</td>
  <td class="mono">${card.proof ?? ''}</td>
  <td>${card.attempts}${card.budget_attempts !== null ? ` / ${card.budget_attempts}` : ''}${card.over_budget ? html` ${badge('FAIL', 'over budget')}` : ''}</td>
  <td>${decisions.length > 0 || ownerClose ? html`<ul>${decisions.map(decisionLine)}${ownerClose ? html`<li><strong>owner_close</strong> (never a pass): ${ownerClose}</li>` : ''}</ul>` : html`<span class="note">none</span>`}</td>
</tr>`,
    )}</tbody></table>`;
  },
});
