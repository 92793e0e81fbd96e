import { describe, expect, it } from 'vitest';
import { visible } from './visible.js';

describe('visible', () => {
  it('shows terminal escape sequences and other controls as text, keeping lines and tabs', () => {
    expect(visible('\u001b[2J\u001b]0;owned\u0007 done\n\tnext\r')).toBe('\\x1b[2J\\x1b]0;owned\\x07 done\n\tnext\\x0d');
    expect(visible('plain <b> "text"')).toBe('plain <b> "text"');
  });
});
