import { describe, expect, it } from 'vitest';
import { canMove, DISPATCH_STATES, type DispatchState } from './states.js';
import { legal } from './testing.js';

const FROM: readonly (DispatchState | null)[] = [null, ...DISPATCH_STATES];
const ALL = FROM.flatMap((from) => DISPATCH_STATES.map((to) => [from, to] as const));

describe('the dispatch state machine', () => {
  it.each(ALL.filter(([f, t]) => legal(f, t)))('%s → %s is legal', (from, to) => {
    expect(canMove(from, to)).toBe(true);
  });

  it.each(ALL.filter(([f, t]) => !legal(f, t)))('%s → %s is refused', (from, to) => {
    expect(canMove(from, to)).toBe(false);
  });

  it('terminated is reachable from every state and leads nowhere', () => {
    for (const from of DISPATCH_STATES) expect(canMove(from, 'terminated')).toBe(from !== 'terminated');
    for (const to of DISPATCH_STATES) expect(canMove('terminated', to)).toBe(false);
  });
});
