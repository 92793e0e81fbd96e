import { oneLine } from '../../render/visible.js';

/**
 * Recorded text (a prompt, a claim, a check id from a forged receipt) as
 * Markdown that renders as exactly that text, never as markup. Controls,
 * bidi characters and newlines are shown as escapes first
 * (render/visible.ts), so the value stays on its line; then every character
 * that starts markup in the middle of a line is backslash-escaped (which
 * CommonMark allows for any ASCII punctuation): a `|` cannot end a table
 * cell, `<img>` or `<details>` is no HTML, `[x](y)` no link, `*` `_` `~`
 * no emphasis, a backquote no code span, `$` no math (GitHub), `&amp;` no
 * entity. Line-start markup (`#`, `>`, `-`, `1.`) cannot apply, because a
 * value is never put at the start of a line, but `#` is escaped as well.
 * GitHub links bare URLs: the colon of `://` is written as an entity and
 * the dot of `www.` escaped, which keeps them from being recognised.
 */
export function mdText(text: string): string {
  return oneLine(text)
    .replace(/[\\`*_[\]<>|!~&#$]/g, (c) => `\\${c}`)
    .replace(/:(?=\/\/)/g, '&#58;')
    .replace(/\b(www)\./gi, '$1\\.');
}

/** Recorded text cut to `max` characters (before escaping), marked when cut. */
export function mdCut(text: string, max: number): string {
  return mdText(text.length > max ? `${text.slice(0, max)}…` : text);
}

/** A table: vouch's own header words, and cells already made Markdown (mdText for anything recorded). */
export function mdTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((c) => (c === '' ? ' ' : c)).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}
