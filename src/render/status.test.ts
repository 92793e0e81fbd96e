import { describe, expect, it } from 'vitest';
import { paint } from './color.js';
import { renderSummary } from './status.js';

const plain = paint(false);

describe('renderSummary: next steps', () => {
  it('names every stale check in one step, not only the first', () => {
    const text = renderSummary(
      [
        { id: 'a', status: 'STALE', reason: 'fingerprint_changed', blocking: true },
        { id: 'b', status: 'STALE', reason: 'fingerprint_changed', blocking: true },
        { id: 'c', status: 'PASS', reason: 'ok', blocking: true },
      ],
      plain,
    );
    expect(text).toBe('1 of 3 blocking checks PASS\nnext: `vouch verify a b`');
  });

  it('gives one line per kind of step, blocking checks before advisory ones', () => {
    const text = renderSummary(
      [
        { id: 'lint', status: 'UNKNOWN', reason: 'spec_not_allowed', blocking: true },
        { id: 'tests', status: 'STALE', reason: 'fingerprint_changed', blocking: true },
        { id: 'docs', status: 'STALE', reason: 'fingerprint_changed', blocking: false },
      ],
      plain,
    );
    expect(text.split('\n').slice(1)).toEqual(['next: review vouch.yaml, then `vouch allow`', 'next: `vouch verify tests`']);
  });
});
