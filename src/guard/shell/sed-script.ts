import type { Word } from './tokenize.js';

/** sed options that neither write nor run anything, and those that take a value. */
const FLAGS = 'nErsuzb';
const LONG = [
  '--quiet',
  '--silent',
  '--regexp-extended',
  '--separate',
  '--unbuffered',
  '--null-data',
  '--posix',
  '--debug',
  '--binary',
  '--sandbox',
  '--help',
  '--version',
];

/**
 * Whether a `sed` call without -i only reads: every option known, and its
 * script (given with -e, or its first operand) made only of commands that
 * neither write a file (`w`, `W`, the `w` flag of `s`) nor run one (`e`,
 * the `e` flag of `s`). `--sandbox` refuses both, so any script is read-only
 * under it; a script from a file (-f) is not read, so it is not.
 */
export function sedReadsOnly(args: readonly Word[]): boolean {
  const scripts: Word[] = [];
  let fromFile = false;
  let sandbox = false;
  let operands = 0;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const text = word.text;
    // A word whose value is unknown could be an option (`-i` writes) or the script itself.
    if (word.opaque) return false;
    if (text === '--') {
      operands += args.length - i - 1;
      if (scripts.length === 0 && i + 1 < args.length) scripts.push(args[i + 1]!);
      break;
    }
    if (text === '-' || !text.startsWith('-')) {
      if (scripts.length === 0 && !fromFile && operands === 0) scripts.push(word);
      operands++;
      continue;
    }
    if (text.startsWith('--')) {
      const [name, value] = text.includes('=') ? [text.slice(0, text.indexOf('=')), text.slice(text.indexOf('=') + 1)] : [text, null];
      if (name === '--sandbox') sandbox = true;
      if (LONG.includes(name)) {
        if (value !== null) return false;
        continue;
      }
      if (name === '--expression' || name === '--file' || name === '--line-length') {
        const given = value !== null ? { ...word, text: value } : args[++i];
        if (given === undefined) return false;
        if (name === '--expression') scripts.push(given);
        if (name === '--file') fromFile = true;
        continue;
      }
      return false;
    }
    for (let j = 1; j < text.length; j++) {
      const letter = text[j]!;
      if (letter === 'e' || letter === 'f' || letter === 'l') {
        const given = j + 1 < text.length ? { ...word, text: text.slice(j + 1) } : args[++i];
        if (given === undefined) return false;
        if (letter === 'e') scripts.push(given);
        if (letter === 'f') fromFile = true;
        break;
      }
      if (!FLAGS.includes(letter)) return false;
    }
  }
  if (sandbox) return true;
  if (fromFile || scripts.length === 0) return false;
  return scripts.every((script) => !script.opaque && scriptReadsOnly(script.text));
}

/** Commands that only move text between the pattern and hold spaces and the output. */
const QUIET = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F', 'l', 'q', 'Q', 'L']);

/**
 * Walks a sed script command by command (GNU syntax): addresses, `!`,
 * braces, labels, text of a/i/c, reads (r, R), and the s and y commands with
 * their delimiters and escapes. False at anything that writes (w, W, s///w)
 * or runs (e, s///e), and at anything it does not recognise.
 */
export function scriptReadsOnly(script: string): boolean {
  let i = 0;
  const n = script.length;
  const skipBlanks = () => {
    while (i < n && /[\s;]/.test(script[i]!)) i++;
  };
  const toEndOfLine = () => {
    while (i < n && script[i] !== '\n') i++;
  };
  /** Reads a delimited part (regex or replacement) up to its unescaped delimiter; false when it never ends. */
  const delimited = (delimiter: string): boolean => {
    while (i < n) {
      const c = script[i]!;
      if (c === '\\') {
        i += 2;
        continue;
      }
      i++;
      if (c === delimiter) return true;
    }
    return false;
  };
  const address = (): boolean => {
    const c = script[i];
    if (c === undefined) return true;
    if (/[0-9]/.test(c)) {
      while (i < n && /[0-9~]/.test(script[i]!)) i++;
      return true;
    }
    if (c === '$') {
      i++;
      return true;
    }
    if (c === '/' || c === '\\') {
      const delimiter = c === '\\' ? script[i + 1] : '/';
      if (delimiter === undefined || delimiter === '\n') return false;
      i += c === '\\' ? 2 : 1;
      if (!delimited(delimiter)) return false;
      while (i < n && /[IM]/.test(script[i]!)) i++;
    }
    return true;
  };
  for (skipBlanks(); i < n; skipBlanks()) {
    if (!address()) return false;
    if (script[i] === ',') {
      i++;
      if (script[i] === '+' || script[i] === '~') i++;
      if (!address()) return false;
    }
    while (i < n && /[ \t!]/.test(script[i]!)) i++;
    const command = script[i];
    if (command === undefined) return false;
    i++;
    if (command === '{' || command === '}') continue;
    if (command === '#' || command === ':') {
      // A comment, or a label: up to the end of the line (GNU also ends a label at `;`).
      while (i < n && script[i] !== '\n' && (command === '#' || script[i] !== ';')) i++;
      continue;
    }
    if (QUIET.has(command)) {
      // q, Q, l and L take an optional number.
      while (i < n && /[ \t0-9]/.test(script[i]!)) i++;
      continue;
    }
    if (command === 'b' || command === 't' || command === 'T') {
      while (i < n && script[i] !== '\n' && script[i] !== ';' && script[i] !== '}') i++;
      continue;
    }
    if (command === 'a' || command === 'i' || command === 'c' || command === 'r' || command === 'R') {
      // Text to append or a file to read, to the end of the line; a backslash at the end continues the text.
      for (;;) {
        toEndOfLine();
        if (i > 0 && script[i - 1] === '\\' && i < n) {
          i++;
          continue;
        }
        break;
      }
      continue;
    }
    if (command === 's' || command === 'y') {
      const delimiter = script[i];
      if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') return false;
      i++;
      if (!delimited(delimiter) || !delimited(delimiter)) return false;
      if (command === 's') {
        while (i < n && /[gpiImM0-9]/.test(script[i]!)) i++;
        // Any other flag (w FILE writes, e runs the pattern space as a command) is not read-only.
        if (i < n && !/[\s;}]/.test(script[i]!)) return false;
      }
      continue;
    }
    // w, W (write a file), e (run a command), v and anything unknown.
    return false;
  }
  return true;
}
