import { visible } from '../../render/visible.js';

/**
 * Markup that is already safe: produced by the `html` template, never by
 * concatenating text. Everything interpolated into `html` that is not Html
 * itself is escaped, so no recorded string (a prompt, a claim, a check's
 * output, a session id from a hook payload) can become markup.
 */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

export type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Text for an element's content or a quoted attribute value. Control and
 * bidi characters are shown as escapes first (render/visible.ts): a browser
 * ignores most controls, but a right-to-left override would reorder a file
 * name or a claim on the page as it does on a terminal.
 */
export function escapeHtml(text: string): string {
  return visible(text).replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

function render(value: Interpolation): string {
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return (value as readonly Interpolation[]).map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** A template of trusted markup; every interpolated value is escaped unless it is Html. */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): Html {
  let markup = strings[0]!;
  values.forEach((value, i) => {
    markup += render(value) + strings[i + 1]!;
  });
  return new Html(markup);
}

/** Markup written in this codebase (a stylesheet), never data. */
export function trusted(markup: string): Html {
  return new Html(markup);
}
