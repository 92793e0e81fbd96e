import { describe, expect, it } from 'vitest';
import { oneLine, visible } from './visible.js';

describe('visible', () => {
  it('shows terminal escape sequences and other controls as text, keeping lines and tabs', () => {
    expect(visible('\u001b[2J\u001b]0;owned\u0007 done\n\tnext\r')).toBe('\\x1b[2J\\x1b]0;owned\\x07 done\n\tnext\\x0d');
    expect(visible('plain <b> "text"')).toBe('plain <b> "text"');
  });

  it.each([
    ['NUL', '\u0000', '\\x00'],
    ['BEL', '\u0007', '\\x07'],
    ['backspace', '\u0008', '\\x08'],
    ['vertical tab', '\u000b', '\\x0b'],
    ['ESC', '\u001b', '\\x1b'],
    ['DEL', '\u007f', '\\x7f'],
    ['C1 CSI (0x9b, a one-byte ESC [)', '\u009b', '\\x9b'],
    ['C1 OSC', '\u009d', '\\x9d'],
    ['right-to-left override', '\u202e', '\\u202e'],
    ['left-to-right embedding', '\u202a', '\\u202a'],
    ['pop directional formatting', '\u202c', '\\u202c'],
    ['right-to-left isolate', '\u2067', '\\u2067'],
    ['pop directional isolate', '\u2069', '\\u2069'],
    ['a lone high surrogate', '\ud800', '\\ud800'],
    ['a lone low surrogate', '\udc00', '\\udc00'],
  ])('escapes %s', (_name, raw, shown) => {
    expect(visible(`a${raw}b`)).toBe(`a${shown}b`);
    expect(oneLine(`a${raw}b`)).toBe(`a${shown}b`);
  });

  it('leaves real text alone: accents, CJK, emoji (a surrogate pair), and the bidi marks that only hint direction', () => {
    const text = 'café 検証 ✓ 😀 \u200f';
    expect(visible(text)).toBe(text);
    expect(oneLine(text)).toBe(text);
  });

  it('a reversed file extension (Trojan Source) is shown as written, override and all', () => {
    expect(visible('invoice\u202efdp.exe')).toBe('invoice\\u202efdp.exe');
  });

  it('oneLine escapes the newline too, so a name cannot start a line of its own', () => {
    expect(oneLine('src/a.ts\n  PASS  tests')).toBe('src/a.ts\\x0a  PASS  tests');
    expect(oneLine('tab\tstays')).toBe('tab\tstays');
  });

  it('is idempotent: escaping escaped text changes nothing', () => {
    const once = visible('\u001b[2K\r\u202e\ud800');
    expect(visible(once)).toBe(once);
  });
});
