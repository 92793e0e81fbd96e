import { oneLine, visible } from './visible.js';

/*
 * The write boundary for people. Everything vouch writes to a terminal (or a
 * log, or a pipe a person reads) passes through toTerminal(), which escapes
 * every control character, so no renderer can forget to. vouch's own
 * colours and its progress line still need a few escape sequences; they
 * travel through the renderers as tokens that untrusted text cannot forge:
 * a Unicode noncharacter (reserved for a program's internal use) followed by
 * a random nonce drawn once per process. Only those tokens become escape
 * sequences at the boundary; an ESC in a file name or a check's output is
 * shown as `\x1b`, and a look-alike token with the wrong nonce stays text.
 */

/** Every control sequence vouch itself writes: SGR colours and the progress line's rewind. */
const SEQUENCES = {
  red: '\u001b[31m',
  green: '\u001b[32m',
  yellow: '\u001b[33m',
  cyan: '\u001b[36m',
  defaultColor: '\u001b[39m',
  bold: '\u001b[1m',
  dim: '\u001b[2m',
  normalIntensity: '\u001b[22m',
  rewindLine: '\r\u001b[2K',
} as const;

export type Sequence = keyof typeof SEQUENCES;

const NAMES = Object.keys(SEQUENCES) as Sequence[];
const MARK = '\ufdd0';

// Drawn on first use (Web Crypto, so nothing is imported for it): a process that never colours anything never pays for it.
let tokens: { readonly nonce: string; readonly pattern: RegExp } | undefined;

function tokenSet(): { readonly nonce: string; readonly pattern: RegExp } {
  if (!tokens) {
    const nonce = Array.from(globalThis.crypto.getRandomValues(new Uint8Array(8)), (byte) => byte.toString(16).padStart(2, '0')).join('');
    tokens = { nonce, pattern: new RegExp(`${MARK}${nonce}([a-z])`, 'g') };
  }
  return tokens;
}

/** The token standing for one of vouch's own control sequences, until toTerminal() writes it. */
export function control(name: Sequence): string {
  return `${MARK}${tokenSet().nonce}${String.fromCharCode(97 + NAMES.indexOf(name))}`;
}

/** Text as it goes to a terminal: untrusted controls escaped, vouch's own tokens turned into their sequences. */
export function toTerminal(text: string): string {
  const safe = visible(text);
  if (!tokens) return safe;
  return safe.replace(tokens.pattern, (token, letter: string) => SEQUENCES[NAMES[letter.charCodeAt(0) - 97]!] ?? token);
}

/** How many columns a one-line cell takes once written: escapes counted as shown, vouch's tokens as nothing. */
export function displayWidth(cell: string): number {
  return (tokens ? oneLine(cell).replace(tokens.pattern, '') : oneLine(cell)).length;
}

/** `text` padded with spaces to `width` columns as displayed. */
export function padDisplay(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}
