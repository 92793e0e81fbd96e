import type { DispatchVerdict } from '../../fleet/model.js';
import { html, type Html } from './escape.js';

/** A badge's colour class for any word a record can carry; an unknown word (a forged record) is grey, never green. */
export function badgeClass(word: string): string {
  switch (word) {
    case 'PASS':
    case 'verified':
    case 'allow':
    case 'allowed':
    case 'intact':
      return 'b-pass';
    case 'FAIL':
    case 'contradicted':
    case 'damaged':
    case 'DAMAGED':
    case 'escaped':
    case 'ESCAPED':
    case 'block':
    case 'blocked':
    case 'DRIFT':
      return 'b-fail';
    case 'STALE':
    case 'ungraded':
    case 'reported':
      return 'b-warn';
    case 'dispatched':
      return 'b-info';
    default:
      return 'b-unknown';
  }
}

export function badge(word: string, label: string = word): Html {
  return html`<span class="badge ${badgeClass(word)}">${label}</span>`;
}

export function verdictBadge(verdict: DispatchVerdict): Html {
  return badge(verdict, verdict === 'contradicted' || verdict === 'damaged' ? verdict.toUpperCase() : verdict);
}

/** A date-time as written in the record, shortened for reading (the full value in the title). */
export function when(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="note">unknown</span>`;
  return html`<span class="mono" title="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</span>`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
