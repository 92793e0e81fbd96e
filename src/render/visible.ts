/*
 * The one sanitiser for text that came from outside vouch's own code: a file
 * name, a check's output, an agent's claim or prompt, a hook payload's id,
 * an error message quoting any of those. What it removes is whatever can
 * change how the rest of the screen reads rather than be read: C0 controls
 * (ESC starts every terminal escape sequence, CR rewinds the line), DEL, C1
 * controls (0x9b is a one-byte CSI on some terminals), the Unicode bidi
 * embeddings, overrides and isolates (they reorder what follows, the
 * "Trojan Source" trick), and lone surrogates (not text at all). Each is
 * shown as an escape a person can read: `\x1b`, `\u202e`.
 */

// Code units, not code points (no `u` flag): a lone surrogate is matched as itself.
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const UNSAFE_KEEPING_LINES =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function escaped(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text made safe to show: every control and bidi character escaped, except
 * newlines and tabs, which keep their meaning (an excerpt of output, a
 * prompt, a claim spans lines).
 */
export function visible(text: string): string {
  return text.replace(UNSAFE_KEEPING_LINES, escaped);
}

/**
 * A value that is one line by nature (a file name, an id, a table cell, a
 * detail): like visible(), and a newline is escaped too, so a name cannot
 * start a line of its own that reads like vouch's ("PASS  tests").
 */
export function oneLine(text: string): string {
  return text.replace(UNSAFE, escaped);
}
