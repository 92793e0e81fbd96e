import type { CardAnswer } from '../cards/answer.js';
import { unreachable } from '../core/unreachable.js';
import { oneLine } from './visible.js';

const plural = (n: number, word: string, many: string) => `${n} ${n === 1 ? word : many}`;

/** Exit codes of the closing PASS as one phrase: "exit 0", "exit 0, 3" when its checks differ, "exit ?" when a receipt is gone. */
function exits(codes: readonly (number | null)[]): string {
  const distinct = [...new Set(codes.map((code) => (code === null ? '?' : String(code))))];
  return `exit ${distinct.length === 0 ? '?' : distinct.join(', ')}`;
}

/**
 * The one line the session that opened a card is shown at its next Stop:
 * `c-7k2m9xqa done - proof exit 0 - 2 runs, 1 fix`, or the question with
 * the proof's last two failure lines.
 */
export function answerLine(card: string, answer: CardAnswer): string {
  switch (answer.kind) {
    case 'done':
      return `${card} done - proof ${exits(answer.exitCodes)} - ${plural(answer.runs, 'run', 'runs')}, ${plural(answer.fixes, 'fix', 'fixes')}`;
    case 'asks':
      return oneLine([`${card} asks: ${answer.question.question}`, ...answer.question.failure_lines].join(' | '));
    case 'owner_closed':
      return oneLine(`${card} closed by the owner WITHOUT a passing proof (not done): ${answer.why}`);
    case 'split':
      return oneLine(`${card} split into ${answer.into.join(', ') || 'other cards'}, not done: ${answer.why}`);
    case 'abandoned':
      return oneLine(`${card} abandoned, not done: ${answer.why}`);
    default:
      return unreachable(answer);
  }
}
