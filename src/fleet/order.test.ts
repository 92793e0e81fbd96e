import { describe, expect, it } from 'vitest';
import { foldDispatch } from './fold.js';
import type { Dispatch } from './model.js';
import { chooseTier } from './order.js';

/** A dispatch with just enough of an order to sit in a chain. */
function ancestor(id: string, session: string | null): Dispatch {
  const base = foldDispatch(id, []);
  return { ...base, order: { session } as Dispatch['order'] };
}

describe('tier inference from the chain', () => {
  it.each([
    ['no parent, no session: the top of its chain', [], null, 'bridge'],
    ['ordered by a session (its agent is the bridge)', [], 's1', 'lane'],
    ['its parent tops its chain', [ancestor('p1', null)], null, 'lane'],
    ['its parent was ordered by a session', [ancestor('p1', 's1')], null, 'leaf'],
    ['two levels below the top', [ancestor('p2', null), ancestor('p1', null)], null, 'leaf'],
  ] as const)('%s → %s', (_name, ancestors, session, tier) => {
    const choice = chooseTier(null, { ancestors, session });
    expect(choice).toMatchObject({ tier, source: 'inferred' });
    expect(choice.basis).toMatch(/^inferred: /);
  });

  it.each([
    ['leaf', 'leaf'],
    ['lane', 'leaf'],
    ['coordinator', 'lane'],
    ['bridge', 'lane'],
  ] as const)('under a parent declared %s (its depth notwithstanding) → %s', (parentTier, tier) => {
    const parent = { ...ancestor('p1', 's1'), order: { session: 's1', tier: parentTier, tier_source: 'declared' } as Dispatch['order'] };
    const choice = chooseTier(null, { ancestors: [parent], session: null });
    expect(choice).toEqual({ tier, source: 'inferred', basis: `inferred: one level below its parent p1, declared ${parentTier}` });
  });

  it('a declared tier wins and says so; coordinator is only ever declared', () => {
    expect(chooseTier('coordinator', { ancestors: [ancestor('p1', null)], session: null })).toEqual({
      tier: 'coordinator',
      source: 'declared',
      basis: 'declared: coordinator',
    });
    for (const depth of [0, 1, 2, 5]) {
      const ancestors = Array.from({ length: depth }, (_, i) => ancestor(`p${i}`, null));
      expect(chooseTier(null, { ancestors, session: null }).tier).not.toBe('coordinator');
    }
  });
});
