import { describe, expect, it } from 'vitest';
import { paint } from './color.js';
import { control, displayWidth, padDisplay, toTerminal } from './terminal.js';

describe('the terminal boundary', () => {
  it("turns vouch's own colour into escape sequences and escapes everything else", () => {
    const p = paint(true);
    const text = `${p.green('PASS')} src/\u001b[2K\rPASS.ts`;
    expect(toTerminal(text)).toBe('\u001b[32mPASS\u001b[39m src/\\x1b[2K\\x0dPASS.ts');
  });

  it("a forged token (vouch's marker with a guessed nonce) stays text, never a sequence", () => {
    const real = control('red');
    const forged = `${real.slice(0, 1)}0123456789abcdef${real.slice(-1)}`;
    expect(forged).not.toBe(real);
    expect(toTerminal(`${forged}x`)).toBe(`${forged}x`);
    expect(toTerminal(`${forged}x`)).not.toContain('\u001b');
  });

  it('a token with a letter no sequence has, or cut short at the end, stays text', () => {
    const prefix = control('red').slice(0, -1);
    expect(toTerminal(`${prefix}zx`)).toBe(`${prefix}zx`);
    expect(toTerminal(`x${prefix}`)).toBe(`x${prefix}`);
  });

  it('rewinds the progress line only with its own token', () => {
    expect(toTerminal(`${control('rewindLine')}… tests`)).toBe('\r\u001b[2K… tests');
    expect(toTerminal('\r\u001b[2K… tests')).toBe('\\x0d\\x1b[2K… tests');
  });

  it('measures what is shown: tokens take no column, an escaped control takes its escape', () => {
    const p = paint(true);
    expect(displayWidth(p.bold('abc'))).toBe(3);
    expect(displayWidth('a\u001bb')).toBe(6);
    expect(padDisplay(p.green('PASS'), 7)).toBe(`${p.green('PASS')}   `);
  });

  it('with colour off, painting adds nothing', () => {
    expect(paint(false).red('FAIL')).toBe('FAIL');
    expect(toTerminal(paint(false).red('FAIL'))).toBe('FAIL');
  });
});
