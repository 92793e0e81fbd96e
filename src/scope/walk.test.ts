import { describe, expect, it } from 'vitest';
import { compareEntries, minimalBases, orderListing, walk, type Listing } from './walk.js';

/** A tree as a map from directory to its entries (name, kind letter). */
function lister(tree: Record<string, [string, string][] | Listing>): (dir: string) => Listing {
  return (dir) => {
    const entries = tree[dir];
    if (entries === undefined) return { kind: 'absent' };
    return Array.isArray(entries)
      ? {
          kind: 'ok',
          ...orderListing(
            entries.map((e) => e[0]),
            entries.map((e) => e[1]).join(''),
          ),
        }
      : entries;
  };
}

describe('walk', () => {
  it('visits entries in path order, the order manifests sort in', () => {
    const seen: string[] = [];
    walk({
      starts: [{ dir: '', context: 1 }],
      enter: (_dir, _name, parent) => parent,
      visit: (path) => seen.push(path),
      list: lister({
        '': [
          ['a', 'd'],
          ['a-b', 'f'],
          ['a.ts', 'f'],
          ['Z', 'f'],
          ['é', 'f'],
        ],
        a: [
          ['x', 'f'],
          ['b', 'd'],
        ],
        'a/b': [['c', 'l']],
      }),
    });
    expect(seen).toEqual([...seen].sort());
    expect(seen).toEqual(['Z', 'a-b', 'a.ts', 'a/b/c', 'a/x', 'é']);
  });

  it('enters only the directories `enter` accepts, with the context it returns', () => {
    const seen: [string, number][] = [];
    walk({
      starts: [{ dir: '', context: 0 }],
      enter: (dir, _name, depth) => (dir.startsWith('skip') ? undefined : depth + 1),
      visit: (path, _kind, depth) => seen.push([path, depth]),
      list: lister({
        '': [
          ['keep', 'd'],
          ['skip', 'd'],
        ],
        keep: [
          ['deep', 'd'],
          ['k.ts', 'f'],
        ],
        'keep/deep': [['d.ts', 'f']],
        skip: [['s.ts', 'f']],
      }),
    });
    expect(seen).toEqual([
      ['keep/deep/d.ts', 2],
      ['keep/k.ts', 1],
    ]);
  });

  it('reports, with their context, directories it could not list and directories swapped for something else', () => {
    const result = walk({
      starts: [{ dir: '', context: 'root' }],
      enter: () => 'inner',
      visit: () => undefined,
      list: lister({
        '': [
          ['locked', 'd'],
          ['swapped', 'd'],
          ['gone', 'd'],
        ],
        locked: { kind: 'unreadable', code: 'EACCES' },
        swapped: { kind: 'replaced' },
      }),
    });
    expect(result.unreadable).toEqual([{ path: 'locked', code: 'EACCES', context: 'inner' }]);
    expect(result.replaced).toEqual([{ path: 'swapped', context: 'inner' }]);
  });
});

describe('compareEntries', () => {
  it('orders names as their paths sort, a directory as its name and "/"', () => {
    const names: [string, boolean][] = [
      ['a', true],
      ['a', false],
      ['a-b', false],
      ['a.ts', true],
      ['ab', false],
      ['a0', true],
      ['', false],
      ['é', false],
      ['😀', true],
      ['\uffff', false],
      ['A', false],
    ];
    for (const [a, aDir] of names) {
      for (const [b, bDir] of names) {
        if (a === b) continue;
        const keyA = aDir ? `${a}/` : a;
        const keyB = bDir ? `${b}/` : b;
        expect(Math.sign(compareEntries(a, aDir, b, bDir)), `${keyA} ${keyB}`).toBe(keyA < keyB ? -1 : 1);
      }
    }
  });
});

describe('minimalBases', () => {
  it('drops bases inside other bases', () => {
    expect(minimalBases(['src/a', 'src', 'lib', 'src/b/c', 'lib2'])).toEqual(['lib', 'lib2', 'src']);
    expect(minimalBases(['src', ''])).toEqual(['']);
  });
});
