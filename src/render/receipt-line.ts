import type { StoredReceipt } from '../receipt/receipt.js';
import type { Paint } from './color.js';
import { statusWord } from './status.js';
import { padDisplay } from './terminal.js';
import { duration } from './time.js';
import { oneLine } from './visible.js';
import { suggestable } from '../runner/env.js';

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

/** How many withheld names a verify line lists before "and N more" (--json has them all). */
const WITHHELD_SHOWN = 12;

/**
 * Under a check that did not pass: the caller's variables it never saw
 * (names only, never values) and the `env:` line that would pass one.
 * The example is never a name that reads like a credential or a proxy.
 */
export function renderWithheld(checkId: string, names: readonly string[], p: Paint): string | undefined {
  if (names.length === 0) return undefined;
  const shown = names.slice(0, WITHHELD_SHOWN).map(oneLine);
  const more = names.length > shown.length ? ` and ${names.length - shown.length} more` : '';
  const example = names.find(suggestable) ?? 'NAME';
  return [
    `    ${p.cyan('env:')} not passed to the check (names only): ${shown.join(', ')}${more}`,
    `    ${p.cyan('hint:')} if it needs one, list it under check ${oneLine(checkId)} in vouch.yaml, e.g. ${oneLine(`env: [${JSON.stringify(example)}]`)}, then run \`vouch allow\``,
  ].join('\n');
}
