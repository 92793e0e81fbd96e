import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { excludesTree, globMatcher, mayMatchBelow } from './glob-dirs.js';

const GLOBS = [
  'src/**',
  'src/**/*.ts',
  '**/*.test.ts',
  'packages/*/src/**',
  'packages/*/src/*.ts',
  'packages/{a,b}/lib/**',
  'packages/[ab]/x.ts',
  'a/*/b/**/c/*.js',
  '**/fixtures/**',
  '*.md',
  'src/**/deep/*.ts',
  '.github/**',
  'x/**.ts',
  '{src,lib/inner}/**',
  '@scope/pkg/**',
  'a/+(b|c)/*.ts',
  '!src/**',
  'packages/*/src/**/*.ts',
  'packages/*/test/**/*.ts',
  '*/x/*.js',
  'a/b/x.ts',
  'a/?/b/**',
  'src/*/deep/*.ts',
  '*/*/*/*.js',
];

const PATHS = [
  'src/a.ts',
  'src/x/y/z.ts',
  'src/deep/a.ts',
  'src/x/deep/b.ts',
  'README.md',
  'lib/inner/q.js',
  'packages/a/src/index.ts',
  'packages/a/src/sub/k.ts',
  'packages/b/lib/util.js',
  'packages/a/x.ts',
  'packages/c/docs/guide.md',
  'a/q/b/c/main.js',
  'a/q/b/r/s/c/main.js',
  'a/b/x.ts',
  'test/fixtures/one/two.txt',
  'x/y.ts',
  'x/a/b.ts',
  '.github/workflows/ci.yml',
  '@scope/pkg/index.js',
  'other/file.ts',
  'pkg.test.ts',
  'deep/down/a.test.ts',
  'q/x/y.js',
  'a/q/b/z/w.txt',
  'src/x/deep/c.ts',
  'w/x/y/z.js',
  'packages/a/test/unit/t.ts',
  '.hidden/.x/y.js',
];

const ancestors = (path: string): string[] => {
  const parts = path.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i).join('/'));
};

describe('globMatcher', () => {
  it.each([...GLOBS, '**', 'src', 'packages/**', '.github/**', 'a/b/**'])('answers as picomatch does for %j', (glob) => {
    const match = picomatch(glob, { dot: true });
    const fast = globMatcher(glob);
    for (const path of [...PATHS, 'src', 'packages', 'srcx/a', 'packages-x/a.ts', 'a/b', 'a/b/.hidden/x', '.github']) {
      expect(fast(path), `${glob} ${path}`).toBe(match(path));
    }
  });
});

describe('mayMatchBelow', () => {
  it.each(GLOBS)('never rules out a directory holding a match of %j', (glob) => {
    const match = picomatch(glob, { dot: true });
    const below = mayMatchBelow(glob);
    for (const path of PATHS.filter((p) => match(p))) {
      for (const dir of ancestors(path)) expect(below(dir), `${glob}: ${dir} holds ${path}`).toBe(true);
    }
  });

  it.each([
    ['packages/*/src/**', 'packages/a/docs', false],
    ['packages/*/src/**', 'packages/a', true],
    ['packages/*/src/**', 'apps', false],
    ['src/**', 'lib', false],
    ['src/**', 'src/deep/er', true],
    ['a/*/b/**/c/*.js', 'a/q/x', false],
    ['a/*/b/**/c/*.js', 'a/q/b/anything/at/all', true],
    ['packages/{a,b}/lib/**', 'packages/c', false],
    ['packages/{a,b}/lib/**', 'packages/b/lib/x', true],
    ['*.md', 'docs', false],
    ['**/*.test.ts', 'any/where', true],
  ])('prunes where nothing can match: %j below %j is %j', (glob, dir, expected) => {
    expect(mayMatchBelow(glob)(dir)).toBe(expected);
  });

  it('answers yes everywhere for globs it cannot split by "/"', () => {
    expect(mayMatchBelow('{src,lib/inner}/**')('elsewhere')).toBe(true);
    expect(mayMatchBelow('!src/**')('elsewhere')).toBe(true);
  });
});

describe('excludesTree', () => {
  it.each([
    ['dist/**', 'dist', true],
    ['dist/**', 'src/dist', false],
    ['**/fixtures/**', 'test/fixtures', true],
    ['**/fixtures/**', 'fixtures', true],
    ['dist/**/*', 'dist', true],
    ['**/*.snap', 'snapshots', false],
    ['dist/*', 'dist', false],
  ])('%j removes everything below %j: %j', (glob, dir, expected) => {
    expect(excludesTree(glob)(dir)).toBe(expected);
  });

  it.each(['dist/**', '**/fixtures/**', 'dist/**/*'])('agrees with the glob itself for %j', (glob) => {
    const match = picomatch(glob, { dot: true });
    const tree = excludesTree(glob);
    for (const path of ['dist/a.js', 'dist/x/y/.hidden', 'test/fixtures/a/b.txt', 'fixtures/z']) {
      const dirs = ancestors(path);
      if (dirs.some((dir) => dir !== '' && tree(dir))) expect(match(path), `${glob} ${path}`).toBe(true);
    }
  });
});
