import { shortId } from '../core/ids.js';
import type { FailureLines } from '../logs/failure-lines.js';
import type { StoredReceipt } from '../receipt/receipt.js';
import type { Paint } from './color.js';
import { statusWord } from './status.js';
import { padDisplay } from './terminal.js';
import { duration } from './time.js';
import { oneLine } from './visible.js';
import { suggestable } from '../runner/env.js';

/** Lines of output a verify line shows from the end of a run that did not pass. */
export const TAIL_LINES = 12;

/** The end of the output a verify line shows: stderr's excerpt when it has one, else stdout's. */
export function outputTail(receipt: StoredReceipt, tailLines = TAIL_LINES): string[] {
  const body = receipt.body;
  const stream = body.stderr && body.stderr.excerpt.trim() ? body.stderr : body.stdout;
  return stream && stream.excerpt.trim()
    ? stream.excerpt
        .trimEnd()
        .split('\n')
        .slice(-tailLines)
        .map((line) => line.trimEnd())
    : [];
}

/**
 * "PASS  tests  1.2s  3f9k2m7q" (the id's short form) with, when it did not
 * pass, the reason, the lines of the whole log that look like where it
 * failed (`failures`, when the caller read the stored log), and the tail.
 */
export function renderVerifyLine(receipt: StoredReceipt, blocking: boolean, p: Paint, failures?: FailureLines, tailLines = TAIL_LINES): string {
  const body = receipt.body;
  const head = `${padDisplay(statusWord(body.verdict, p), 7)} ${oneLine(body.check_id)}${blocking ? '' : p.dim(' (advisory)')}  ${p.dim(
    `${duration(body.duration_ms)}  ${shortId(body.id)}`,
  )}`;
  if (body.verdict === 'PASS') return head;
  const lines = [head, `    ${body.reason}${body.detail ? `: ${oneLine(body.detail)}` : ''}`];
  if (failures && failures.lines.length > 0) {
    lines.push(p.dim(`    lines that look like failures${failures.more > 0 ? ` (first ${failures.lines.length}; ${failures.more} more)` : ''}:`));
    lines.push(...failures.lines.map((f) => `    ${p.dim(`${f.stream}:${f.line}`)} ${oneLine(f.text)}`));
    lines.push(p.dim('    end of output:'));
  }
  lines.push(...outputTail(receipt, tailLines).map((line) => p.dim(`    │ ${line}`)));
  if (body.log) lines.push(p.dim(`    whole output: vouch show ${shortId(body.id)} --log`));
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
