import { describe, expect, it } from 'vitest';
import { newId, shortId } from './ids.js';

describe('shortId', () => {
  it('differs for ids made in the same millisecond, whose leading parts collide', () => {
    const now = Date.now();
    const ids = Array.from({ length: 1000 }, () => newId(now));
    expect(new Set(ids.map((id) => id.slice(0, 10))).size).toBe(1);
    expect(new Set(ids.map(shortId)).size).toBe(1000);
    expect(shortId(ids[0]!)).toHaveLength(8);
    expect(ids[0]!.endsWith(shortId(ids[0]!))).toBe(true);
  });
});
