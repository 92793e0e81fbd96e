import { describe, expect, it } from 'vitest';
import { scriptInputs } from './npm-scripts.js';

describe('scriptInputs', () => {
  it.each([
    ['a tool named in the script', { test: 'vitest run' }, 'test', ['vitest']],
    ['a path to the tool, quotes and operators', { test: "./node_modules/.bin/nyc 'tape' && c8 -r lcov mocha" }, 'test', ['c8', 'mocha', 'nyc']],
    ['pre and post scripts, which npm runs too', { pretest: 'eslint .', test: 'jest', posttest: 'prettier --check .' }, 'test', ['eslint', 'jest', 'prettier']],
    [
      'scripts run in turn: npm run, yarn, pnpm, npm test',
      { ci: 'npm run --silent lint && yarn build && pnpm run types && npm t', lint: 'eslint', build: 'rollup -c', types: 'tsc', test: 'ava' },
      'ci',
      ['ava', 'eslint', 'npm', 'pnpm', 'rollup', 'tsc', 'yarn'],
    ],
    [
      'run-s with a glob of script names',
      { check: 'run-s lint:*', 'lint:js': 'eslint .', 'lint:css': 'stylelint "**/*.css"' },
      'check',
      ['eslint', 'stylelint'],
    ],
    ['a cycle ends', { a: 'npm run b', b: 'npm run a && tsc' }, 'a', ['npm', 'tsc']],
    ['an unknown command names no tool', { test: 'node test.js' }, 'test', []],
  ])('%s', (_name, scripts, name, tools) => {
    expect([...scriptInputs(scripts, name).tools].sort()).toEqual(tools);
  });

  it('names the relative paths a script and the scripts it runs mention, not flags, globs, URLs or paths outside', () => {
    const scripts = {
      build: 'node ./scripts/build.mjs --out=dist/x.js && tsc -p tsconfig.build.json',
      test: "npm run build && node --test test/ 'test/**/*.js' ../other/x.js https://example.com/a.js /abs/b.js v1.2",
    };
    expect([...scriptInputs(scripts, 'test').paths].sort()).toEqual(['scripts/build.mjs', 'test/', 'tsconfig.build.json', 'v1.2']);
  });

  it('names the programs a script starts, which npm looks up in node_modules/.bin first: the first word of each command, and what npx or env start', () => {
    const scripts = { test: 'CI=1 node --test test/ && npx --no-install tsc -p . | tee log; env FOO=1 mocha "x"', lint: 'eslint .', pretest: 'npm run lint' };
    expect([...scriptInputs(scripts, 'test').commands].sort()).toEqual(['env', 'eslint', 'mocha', 'node', 'npm', 'npx', 'tee', 'tsc']);
  });
});
