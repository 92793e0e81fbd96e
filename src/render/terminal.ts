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
let prefix: string | undefined;

function tokenPrefix(): string {
  prefix ??= MARK + Array.from(globalThis.crypto.getRandomValues(new Uint8Array(8)), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return prefix;
}

/** The token standing for one of vouch's own control sequences, until toTerminal() writes it: the prefix and one letter. */
export function control(name: Sequence): string {
  return `${tokenPrefix()}${String.fromCharCode(97 + NAMES.indexOf(name))}`;
}

/** `text` with each of vouch's tokens replaced by what `write` makes of its sequence; anything else that looks like one stays text. */
function replaceTokens(text: string, write: (name: Sequence) => string): string {
  if (prefix === undefined || !text.includes(prefix)) return text;
  const [first, ...rest] = text.split(prefix);
  let out = first!;
  for (const part of rest) {
    const name = NAMES[part.charCodeAt(0) - 97];
    out += name === undefined ? prefix + part : write(name) + part.slice(1);
  }
  return out;
}

/** Text as it goes to a terminal: untrusted controls escaped, vouch's own tokens turned into their sequences. */
export function toTerminal(text: string): string {
  return replaceTokens(visible(text), (name) => SEQUENCES[name]);
}

/** How many columns a one-line cell takes once written: escapes counted as shown, vouch's tokens as nothing. */
export function displayWidth(cell: string): number {
  return replaceTokens(oneLine(cell), () => '').length;
}

/** `text` padded with spaces to `width` columns as displayed. */
export function padDisplay(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)));
}
