import { fail } from '../core/problem.js';
import { unreachable } from '../core/unreachable.js';
import { isClosed, type CardView } from './fold.js';

/** Refuses any act on a closed card, saying how it was closed. */
export function requireOpen(view: CardView, act: string): void {
  if (!isClosed(view.state)) return;
  fail({ code: 'card_closed', message: `card ${view.id} is closed (${closedHow(view)}): nothing can ${act} it`, hint: 'open a new card for further work' });
}

export function closedHow(view: CardView): string {
  switch (view.state) {
    case 'done':
      return 'done on a fresh PASS';
    case 'owner_closed':
      return 'owner_close: the owner closed it without a fresh PASS';
    case 'split':
      return 'split into other cards';
    case 'abandoned':
      return 'abandoned';
    case 'open':
    case 'claimed':
      return view.state;
    default:
      return unreachable(view.state);
  }
}
