import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import picomatch from 'picomatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandBraces, gitPathspecs } from './git-pathspecs.js';
import type { ScopeDecl } from './scan-types.js';

const scope = (sources: string[], more: Partial<ScopeDecl> = {}): ScopeDecl => ({
  sources,
  tests: [],
  artifacts: [],
  exclude: [],
  allowMissing: false,
  ...more,
});

const PATHS = [
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  '.eslintrc.json',
  'a.config.ts',
  'README.md',
  'src/index.ts',
  'src/deep/er/x.ts',
  'src/deep/er/x.md',
  'src/.hidden/y.ts',
  'lib/inner/z.js',
  'lib/other/z.js',
  'packages/a/src/one.ts',
  'packages/a/src/sub/two.tsx',
  'packages/b/test/t.test.ts',
  'packages/b/lib/l.js',
  'packages/[ab]/x.ts',
  'packages/a/x.ts',
  'pkg star*/file.ts',
  'x/y.ts',
  'a/c/b/q/c/r.js',
  'a/1/b/deep.js',
  '@scope/pkg/index.js',
  'fixtures/f.txt',
  'deep/fixtures/g.txt',
  'a/b/x.ts',
];

/** Globs as specs write them: init's, the scan tests', and shapes git's glob magic cannot say (they fall back to their base). */
const GLOBS = [
  'src/**',
  'src/**/*.ts',
  '**/*.test.ts',
  'packages/*/src/**',
  'packages/*/src/*.ts',
  'packages/{a,b}/lib/**',
  'packages/[ab]/x.ts',
  'packages/[!b]/x.ts',
  'a/*/b/**/c/*.js',
  '**/fixtures/**',
  '*.md',
  '*.{js,ts}',
  '*.json',
  'tsconfig*.json',
  '.eslintrc*',
  'src/**/deep/*.ts',
  'x/**.ts',
  '{src,lib/inner}/**',
  '@scope/pkg/**',
  'a/+(b|c)/*.ts',
  '*/x/*.js',
  'a/b/x.ts',
  'a/?/b/**',
  '*/*/*/*.js',
  'pkg star*/*.ts',
  '**/*.{test,spec}.{js,ts}',
  'src/{a..c}/*.ts',
  'src/{x}/*.ts',
];

describe('gitPathspecs: git names every tracked file a glob can match', () => {
  let repo: string;
  let prefixed: string;
  const listed = (cwd: string, pathspecs: string[]) =>
    execFileSync('git', ['ls-files', '-z', '--cached', '--full-name', '--', ...pathspecs], { cwd, encoding: 'utf8' })
      .split('\0')
      .filter(Boolean);

  beforeAll(() => {
    repo = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-pathspecs-')));
    // The same paths at the top, and below a directory whose name holds glob characters.
    prefixed = 'ws [1]*';
    for (const path of [...PATHS, ...PATHS.map((p) => `${prefixed}/${p}`)]) {
      mkdirSync(dirname(join(repo, path)), { recursive: true });
      writeFileSync(join(repo, path), path);
    }
    execFileSync('git', ['init', '-q'], { cwd: repo });
    execFileSync('git', ['add', '-A'], { cwd: repo });
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it.each(GLOBS)('%s', (glob) => {
    const matches = picomatch(glob, { dot: true });
    const expected = PATHS.filter((path) => matches(path));
    const atTop = new Set(listed(repo, gitPathspecs(scope([glob]), '')));
    for (const path of expected) expect(atTop, `${path} at the top`).toContain(path);
    const below = new Set(listed(repo, gitPathspecs(scope([glob]), `${prefixed}/`)));
    for (const path of expected) expect(below, `${path} below "${prefixed}"`).toContain(`${prefixed}/${path}`);
    // Nothing outside the workspace below is named for it.
    expect([...below].every((path) => path.startsWith(`${prefixed}/`))).toBe(true);
  });

  it('names a glob from the root by itself, not the whole tree (the point: git reads the scope, not 13k folders)', () => {
    expect(gitPathspecs(scope(['src/**'], { inputs: ['package.json', 'tsconfig*.json', '*.{js,ts}'] }), '')).toEqual([
      ':(top,literal)package.json',
      ':(top,glob)tsconfig*.json',
      ':(top,literal)tsconfig*.json',
      ':(top,glob)*.js',
      ':(top,glob)*.ts',
      ':(top,literal)*.{js,ts}',
      ':(top,literal)src',
    ]);
    expect(listed(repo, gitPathspecs(scope(['*.md']), '')).sort()).toEqual(['README.md']);
  });

  it('falls back to the base of a glob git cannot say the same way (extglob, range, negation, escape)', () => {
    expect(gitPathspecs(scope(['a/+(b|c)/*.ts', 'src/{a..c}/*.ts', '!src/**', 'lib/\\*.js']), '')).toEqual([
      ':(top,literal)a',
      ':(top,literal)src',
      ':(top)',
      ':(top,literal)lib',
    ]);
    // The glob's own text is named too: picomatch matches a file named as the glob.
    expect(gitPathspecs(scope(['*.ts']), 'w[1]/')).toEqual([':(top,glob)w\\[1]/*.ts', ':(top,literal)w[1]/*.ts']);
  });
});

describe('expandBraces', () => {
  it.each([
    ['*.ts', ['*.ts']],
    ['*.{js,ts}', ['*.js', '*.ts']],
    ['{a,b}/{c,d}', ['a/c', 'a/d', 'b/c', 'b/d']],
    ['{a,{b,c}}/x', ['a/x', 'b/x', 'c/x']],
    ['{x}/y', ['{x}/y']],
    ['{a,b', undefined],
  ] as const)('%s', (glob, expected) => {
    expect(expandBraces(glob)).toEqual(expected);
  });

  it('gives up past 32 globs', () => {
    expect(expandBraces('{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}')).toBeUndefined();
  });
});
