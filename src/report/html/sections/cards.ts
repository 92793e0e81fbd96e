import type { ReportCard } from '../../model/types.js';
import { html, type Html } from '../escape.js';
import type { Section } from '../section.js';
import { badge, when } from '../words.js';

function decisionLine(d: ReportCard['decisions'][number]): Html {
  const what = d.decision === 'split' && d.into ? ` into ${d.into.join(', ')}` : '';
  return html`<li>
    ${when(d.at)} <strong>${d.decision}</strong>${what} <span class="note">by ${d.by.role} (${d.by.via}${d.by.agent ? `, ${d.by.agent}` : ''})</span>: ${d.why}
  </li>`;
}

function stateBadge(card: ReportCard): Html {
  const word = card.state === 'done' ? 'verified' : card.state === 'damaged' ? 'DAMAGED' : card.state === 'owner_closed' ? 'ungraded' : 'reported';
  return badge(word, card.state);
}

/** Task cards with their decisions. */
export const cardsSection: Section = {
  id: 'cards',
  title: 'Task cards',
  render({ cards }) {
    if (cards.length === 0) return null;
    return html`<table>
      <thead>
        <tr>
          <th>card</th>
          <th>state</th>
          <th>grade</th>
          <th>goal</th>
          <th>proof</th>
          <th>attempts</th>
          <th>decisions</th>
        </tr>
      </thead>
      <tbody>
        ${cards.map(
          (card) =>
            html`<tr id="card-${card.id}">
              <td class="mono">${card.id}</td>
              <td>${stateBadge(card)}${card.damage ? html`<div class="note">${card.damage}</div>` : ''}</td>
              <td>${badge(card.grade)}${card.audit ? html` <span class="note">audit</span> ${badge(card.audit)}` : ''}</td>
              <td>${card.goal ?? ''}${card.artifact ? html`<div class="note">artifact: ${card.artifact}</div>` : ''}</td>
              <td class="mono">${card.proof ?? ''}</td>
              <td>
                ${card.attempts}${card.budget_attempts !== null ? ` / ${card.budget_attempts}` : ''}${card.over_budget ? html` ${badge('FAIL', 'over budget')}` : ''}
              </td>
              <td>
                ${
                  card.decisions.length > 0 || card.owner_close
                    ? html`<ul>
                        ${card.decisions.map(decisionLine)}${card.owner_close ? html`<li><strong>owner_close</strong> (never a pass): ${card.owner_close.why}</li>` : ''}
                      </ul>`
                    : html`<span class="note">none</span>`
                }
              </td>
            </tr>`,
        )}
      </tbody>
    </table>`;
  },
};
