import type { StoredReceipt } from '../receipt/receipt.js';
import type { Paint } from './color.js';
import { statusWord } from './status.js';
import { padDisplay } from './terminal.js';
import { duration } from './time.js';
import { oneLine } from './visible.js';

/** "PASS  tests  1.2s  01jf8x..." with the failure reason and output tail when it did not pass. */
export function renderVerifyLine(receipt: StoredReceipt, blocking: boolean, p: Paint, tailLines = 12): string {
  const body = receipt.body;
  const head = `${padDisplay(statusWord(body.verdict, p), 7)} ${oneLine(body.check_id)}${blocking ? '' : p.dim(' (advisory)')}  ${p.dim(
    `${duration(body.duration_ms)}  ${body.id}`,
  )}`;
  if (body.verdict === 'PASS') return head;
  const lines = [head, `    ${body.reason}${body.detail ? `: ${oneLine(body.detail)}` : ''}`];
  const stream = body.stderr && body.stderr.excerpt.trim() ? body.stderr : body.stdout;
  if (stream && stream.excerpt.trim()) {
    const tail = stream.excerpt.trimEnd().split('\n').slice(-tailLines);
    lines.push(...tail.map((line) => p.dim(`    │ ${line}`)));
  }
  return lines.join('\n');
}
