import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/**
 * `vouch init --write` on real project shapes, then the spec it wrote used
 * as a person would: `vouch checks` shows every declared group holding
 * files, and where the tool runs here (node, npm, python3 -m unittest,
 * make, tsc; pytest when installed) `vouch verify` passes on a correct tree
 * and fails on a broken one.
 */

const UNITTEST_CASE = (module: string) =>
  `import unittest\nfrom ${module} import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n`;
// Debian's python3 (python3-pytest, which .ci/run installs) is /usr/bin/python3; the python3 first on
// this machine's PATH is another one. The pytest test allows its spec with /usr/bin first, and the check runs on that pinned PATH.
const DEBIAN_FIRST = { PATH: `/usr/bin:/bin:${process.env.PATH ?? ''}` };
const hasPytest = spawnSync('/usr/bin/python3', ['-c', 'import pytest'], { stdio: 'ignore' }).status === 0;
const CI = process.env.CI === 'true';
const TYPESCRIPT = resolve(import.meta.dirname, '../node_modules/typescript');

const PYTEST_PROJECT = {
  'pyproject.toml': '[project]\nname = "pkg"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\npythonpath = ["src"]\n',
  'src/pkg/__init__.py': '',
  'src/pkg/core.py': 'def add(a, b):\n    return a + b\n',
  'tests/test_core.py': 'from pkg.core import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
};

interface CheckJson {
  id: string;
  sources: string[];
  tests: string[];
  warnings: unknown[];
  files: { path: string; group: string }[];
}

/** init --write, then `checks --files --json`: no warning, and every declared group holds files. */
async function initAndList(rig: Rig, env: Record<string, string> = {}): Promise<CheckJson[]> {
  const written = await rig.run(['init', '--write'], { env });
  expect(written.code, written.stderr).toBe(0);
  const listed = await rig.run(['checks', '--files', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  const checks = listed.json<{ checks: CheckJson[] }>().checks;
  for (const check of checks) {
    expect(check.warnings, check.id).toEqual([]);
    if (check.sources.length > 0)
      expect(
        check.files.some((f) => f.group === 'source'),
        `${check.id} sources`,
      ).toBe(true);
    if (check.tests.length > 0)
      expect(
        check.files.some((f) => f.group === 'test'),
        `${check.id} tests`,
      ).toBe(true);
  }
  const human = await rig.run(['checks']);
  expect(human.stdout).not.toContain('warning');
  return checks;
}

/** The check's files as "group path". */
const filesOf = (check: CheckJson | undefined) => (check?.files ?? []).map((f) => `${f.group} ${f.path}`);

async function verify(rig: Rig, id: string, timeoutMs?: number): Promise<{ status: string; reason: string }> {
  const result = await rig.run(['verify', id, '--json'], timeoutMs === undefined ? {} : { timeoutMs });
  return result.json().checks[0];
}

// Each test runs real tools two or three times; the machine may be loaded.
describe('vouch init on real project shapes', { timeout: 180_000 }, () => {
  it('an npm package shaped like minimist: tape on test/*.js; verify passes, then fails on a broken index.js', async () => {
    const rig = new Rig()
      .write({
        'package.json': JSON.stringify({ name: 'minimist', main: 'index.js', scripts: { test: 'tape test/*.js', lint: 'eslint .' } }),
        'index.js': 'module.exports = function parse(args) { return { _: args.slice() }; };\n',
        'example/parse.js': "console.log(require('../')(process.argv.slice(2)));\n",
        'test/all_bool.js': "var assert = require('assert');\nassert.deepStrictEqual(require('../')(['a']), { _: ['a'] });\n",
        'test/dash.js': "var assert = require('assert');\nassert.deepStrictEqual(require('../')(['-']), { _: ['-'] });\n",
        '.eslintrc': '{"root": true}\n',
        '.nycrc': '{}\n',
      })
      // A stand-in for tape on the PATH npm gives scripts: each file run by node, failing on the first that fails.
      .script('node_modules/.bin/tape', 'for f in "$@"; do node "$f" || exit 1; done');
    const checks = await initAndList(rig);
    expect(checks.map((c) => c.id)).toEqual(['tests', 'lint']);
    const [tests, lint] = checks;
    expect(filesOf(tests)).toEqual(['source example/parse.js', 'source index.js', 'input package.json', 'test test/all_bool.js', 'test test/dash.js']);
    expect(filesOf(lint)).toContain('input .eslintrc');
    expect(await verify(rig, 'tests')).toMatchObject({ status: 'PASS' });
    rig.write({ 'index.js': 'module.exports = function parse(args) { return { _: [] }; };\n' });
    expect(await verify(rig, 'tests')).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
  });

  it.each([
    [
      'a tests/ package',
      {
        'calc/__init__.py': '',
        'calc/core.py': 'def add(a, b):\n    return a + b\n',
        'tests/__init__.py': '',
        'tests/test_core.py': UNITTEST_CASE('calc.core'),
      },
      'calc/core.py',
    ],
    ['a tests/ directory that is not a package', { 'calc.py': 'def add(a, b):\n    return a + b\n', 'tests/test_calc.py': UNITTEST_CASE('calc') }, 'calc.py'],
    ['*_test.py beside the code', { 'calc.py': 'def add(a, b):\n    return a + b\n', 'calc_test.py': UNITTEST_CASE('calc') }, 'calc.py'],
    [
      'a src/ layout',
      {
        'pyproject.toml': '[project]\nname = "calc"\n',
        'src/calc/__init__.py': '',
        'src/calc/core.py': 'def add(a, b):\n    return a + b\n',
        'tests/test_core.py': UNITTEST_CASE('calc.core'),
      },
      'src/calc/core.py',
    ],
  ])('a unittest project with %s: verify passes, then fails on a broken module', async (_name, files, module) => {
    const rig = new Rig().write(files);
    const [check, ...rest] = await initAndList(rig);
    expect(rest).toEqual([]);
    expect(filesOf(check)).toContain(`source ${module}`);
    expect(filesOf(check).filter((f) => f.startsWith('test '))).not.toEqual([]);
    expect(await verify(rig, 'tests')).toMatchObject({ status: 'PASS' });
    rig.write({ [module]: 'def add(a, b):\n    return a - b\n' });
    expect(await verify(rig, 'tests')).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
  });

  it('a unittest project whose tests were all deleted does not PASS on zero tests run', async () => {
    const rig = new Rig().write({ 'calc.py': 'def add(a, b):\n    return a + b\n', 'test_calc.py': UNITTEST_CASE('calc') });
    await initAndList(rig);
    // Still named test*.py, so still in scope, but no TestCase left: unittest exits 0 on Python 3.11.
    rig.write({ 'test_calc.py': 'import unittest\n' });
    expect((await verify(rig, 'tests')).status).not.toBe('PASS');
  });

  it('a pytest project (src/pkg, tests/test_*.py, pyproject.toml): pyproject.toml is an input, tests are tests', async () => {
    const [check] = await initAndList(new Rig().write(PYTEST_PROJECT));
    expect(check).toMatchObject({ id: 'tests', sources: ['**/*.py'], tests: ['tests/**'] });
    expect(filesOf(check)).toEqual(['input pyproject.toml', 'source src/pkg/__init__.py', 'source src/pkg/core.py', 'test tests/test_core.py']);
  });

  // Needs Debian's python3-pytest (the check init proposes runs pytest with /usr/bin first on PATH). .ci/run installs it, so in CI this
  // always runs (and fails if pytest is missing); it is skipped, by name, only on a developer machine without it.
  it.skipIf(!hasPytest && !CI)('a pytest project: verify passes, then fails on a broken module (needs pytest)', async () => {
    const rig = new Rig().write(PYTEST_PROJECT);
    await initAndList(rig, DEBIAN_FIRST);
    expect(await verify(rig, 'tests')).toMatchObject({ status: 'PASS' });
    rig.write({ 'src/pkg/core.py': 'def add(a, b):\n    return a - b\n' });
    expect(await verify(rig, 'tests')).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
  });

  it('a Makefile project: make test runs the shell tests; what make writes under build/ is out of scope', async () => {
    const rig = new Rig().write({
      Makefile: 'test:\n\tmkdir -p build\n\tsh tests/test_greet.sh > build/test.log\n',
      'src/greet.sh': 'greet() { echo "hello $1"; }\n',
      'tests/test_greet.sh': '. ./src/greet.sh\n[ "$(greet you)" = "hello you" ] || { echo "greet is broken"; exit 1; }\n',
    });
    const [check, ...rest] = await initAndList(rig);
    expect(rest).toEqual([]);
    expect(check).toMatchObject({ id: 'make-test', sources: ['**/*.sh'], tests: ['tests/**'] });
    expect(filesOf(check)).toEqual(['input Makefile', 'source src/greet.sh', 'test tests/test_greet.sh']);
    expect(await verify(rig, 'make-test')).toMatchObject({ status: 'PASS' });
    rig.write({ 'src/greet.sh': 'greet() { echo "bye $1"; }\n' });
    expect(await verify(rig, 'make-test')).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
  });

  it('a TypeScript project: typecheck runs the real tsc; it passes, then fails on a type error', async () => {
    const rig = new Rig()
      .write({
        'package.json': JSON.stringify({ name: 'ts-app', type: 'module', scripts: { test: 'vitest run', typecheck: 'tsc --noEmit', lint: 'eslint .' } }),
        'tsconfig.json': JSON.stringify({
          compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: [] },
          include: ['src', 'test'],
        }),
        'eslint.config.js': 'export default [];\n',
        'vitest.config.ts': 'export default {};\n',
        'src/index.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
        'src/index.test.ts': "import { add } from './index.js';\nconst sum: number = add(2, 3);\nexport { sum };\n",
        'test/e2e.test.ts': "import { add } from '../src/index.js';\nexport const n: number = add(1, 1);\n",
      })
      .symlink(TYPESCRIPT, 'node_modules/typescript')
      .symlink('../typescript/bin/tsc', 'node_modules/.bin/tsc');
    const checks = await initAndList(rig);
    expect(checks.map((c) => c.id)).toEqual(['tests', 'typecheck', 'lint']);
    const byId = Object.fromEntries(checks.map((c) => [c.id, c]));
    expect(byId.typecheck!.tests).toEqual(['test/**', '**/*.{test,spec}.ts']);
    expect(filesOf(byId.typecheck)).toEqual(
      expect.arrayContaining(['input tsconfig.json', 'source src/index.ts', 'test src/index.test.ts', 'test test/e2e.test.ts']),
    );
    expect(filesOf(byId.tests)).toEqual(expect.arrayContaining(['input vitest.config.ts', 'input tsconfig.json']));
    expect(filesOf(byId.lint)).toContain('input eslint.config.js');
    // tsc takes seconds, more on a loaded machine: no speed is asserted here.
    expect(await verify(rig, 'typecheck', 170_000)).toMatchObject({ status: 'PASS' });
    rig.write({ 'src/index.ts': 'export function add(a: number, b: number): number {\n  return `${a}${b}`;\n}\n' });
    expect(await verify(rig, 'typecheck', 170_000)).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
  }, 360_000);
});

/** A program on this process's PATH, or null. */
const which = (name: string): string | null => {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
};
// Go and Rust are on the CI machine kind (polyglot), so these run there; a machine without them skips, saying which.
const GO = which('go');
const CARGO = which('cargo');

describe('the inputs init proposes hold what decides the run (a file that appears later counts)', { timeout: 240_000 }, () => {
  /** A real Node project: `npm test` runs node's own test runner. */
  const NODE_PROJECT = {
    'package.json': JSON.stringify({ name: 'adder', version: '1.0.0', scripts: { test: 'node --test test/' } }),
    'package-lock.json': JSON.stringify({
      name: 'adder',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: { '': { name: 'adder', version: '1.0.0' } },
    }),
    'src/add.js': 'exports.add = (a, b) => a + b;\n',
    'test/add.test.js':
      "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/add.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
  };

  it('attack: a Node project (npm test): a node_modules/.bin/node shim that exits 0, dropped beside broken code, is UNKNOWN/input_changed, not PASS', async () => {
    const rig = new Rig().write(NODE_PROJECT);
    const [tests] = await initAndList(rig);
    expect(tests!.id).toBe('tests');
    expect(readFileSync(rig.path('vouch.yaml'), 'utf8')).toContain('"node_modules/.bin/node"');
    expect(filesOf(tests)).toEqual(['input package-lock.json', 'input package.json', 'source src/add.js', 'test test/add.test.js']);
    expect(await verify(rig, 'tests')).toMatchObject({ status: 'PASS' });
    rig.write({ 'src/add.js': 'exports.add = (a, b) => a - b;\n' }).script('node_modules/.bin/node', 'exit 0');
    // npm puts node_modules/.bin first on the script's PATH: the shim would run instead of node.
    expect(spawnSync('npm', ['test'], { cwd: rig.root, stdio: 'ignore' }).status).toBe(0);
    const status = (await rig.run(['status', '--json'])).json().checks[0];
    expect(status).toMatchObject({ status: 'UNKNOWN', reason: 'input_changed' });
    expect(status.detail).toContain('node_modules/.bin/node (appeared)');
    expect(await verify(rig, 'tests')).toMatchObject({ status: 'UNKNOWN', reason: 'input_changed' });
  });

  // Needs Debian's python3-pytest, as the pytest project above; skipped only on a developer machine without it, never in CI.
  it.skipIf(!hasPytest && !CI)(
    'a pytest project: a conftest.py that appears (none at init) is UNKNOWN/input_changed (needs pytest; CI always runs it)',
    async () => {
      const rig = new Rig().write(PYTEST_PROJECT);
      await initAndList(rig, DEBIAN_FIRST);
      expect(await verify(rig, 'tests')).toMatchObject({ status: 'PASS' });
      rig.write({ 'src/pkg/core.py': 'def add(a, b):\n    return a - b\n', 'tests/conftest.py': 'import os\nos._exit(0)\n' });
      const status = (await rig.run(['status', '--json'])).json().checks[0];
      expect(status).toMatchObject({ status: 'UNKNOWN', reason: 'input_changed' });
      expect(status.detail).toContain('tests/conftest.py (appeared)');
    },
  );

  it('a Makefile project: a GNUmakefile that appears (make reads it before the Makefile) is UNKNOWN/input_changed', async () => {
    const rig = new Rig().write({
      Makefile: 'test:\n\tsh tests/test_greet.sh\n',
      'src/greet.sh': 'greet() { echo "hello $1"; }\n',
      'tests/test_greet.sh': '. ./src/greet.sh\n[ "$(greet you)" = "hello you" ]\n',
    });
    await initAndList(rig);
    expect(await verify(rig, 'make-test')).toMatchObject({ status: 'PASS' });
    rig.write({ GNUmakefile: 'test:\n\ttrue\n', 'src/greet.sh': 'greet() { echo "bye $1"; }\n' });
    const status = (await rig.run(['status', '--json'])).json().checks[0];
    expect(status).toMatchObject({ status: 'UNKNOWN', reason: 'input_changed' });
    expect(status.detail).toContain('GNUmakefile (appeared)');
  });

  // go and cargo are not among the Debian packages the suite installs: these run where they are on the PATH.
  // `go test` itself is not run: with a fresh build cache (the rig's HOME) it compiles the standard library, minutes on a loaded machine.
  it.skipIf(GO === null)(
    'a real `go mod init` project: go.mod and go.sum (absent yet) are inputs; a go.sum that appears is input_changed (needs go)',
    async () => {
      const rig = new Rig().write({
        'add.go': 'package adder\n\nfunc Add(a, b int) int { return a + b }\n',
        'add_test.go': 'package adder\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("add")\n\t}\n}\n',
      });
      execFileSync(GO!, ['mod', 'init', 'example.com/adder'], { cwd: rig.root, env: { ...process.env, HOME: rig.home }, stdio: 'ignore' });
      const checks = await initAndList(rig);
      expect(checks.map((c) => c.id)).toEqual(['tests', 'vet']);
      expect(filesOf(checks[0])).toEqual(['source add.go', 'test add_test.go', 'input go.mod']);
      rig.write({ 'go.sum': '' });
      expect((await rig.run(['status', 'tests', '--json'])).json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'input_changed' });
    },
  );

  // Skipped where cargo is not on the PATH (not a Debian package the suite installs, as for go above).
  it.skipIf(CARGO === null)(
    'a real `cargo init` project: Cargo.toml is an input, Cargo.lock and the toolchain file (absent yet) too (needs cargo)',
    async () => {
      const rig = new Rig();
      execFileSync(CARGO!, ['init', '--lib', '--vcs', 'none', '--name', 'adder'], { cwd: rig.root, stdio: 'ignore' });
      const [tests] = await initAndList(rig);
      expect(tests).toMatchObject({ id: 'tests' });
      expect(filesOf(tests)).toEqual(['input Cargo.toml', 'source src/lib.rs']);
      const yaml = readFileSync(rig.path('vouch.yaml'), 'utf8');
      expect(yaml).toContain('inputs: ["Cargo.toml", "Cargo.lock", "rust-toolchain.toml", "rust-toolchain", ".cargo/config.toml", ".cargo/config"]');
      rig.write({ 'rust-toolchain.toml': '[toolchain]\nchannel = "nightly"\n' });
      expect((await rig.run(['status', '--json'])).json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'input_changed' });
    },
  );
});

describe('vouch init with nothing to propose', () => {
  it.each([
    ['init --write', ['--write']],
    ['init', []],
  ])('%s exits 1 (nothing_detected) with what it looked for, and writes or prints no placeholder', async (_name, flags) => {
    const rig = new Rig().write({ 'README.md': '# notes\n', 'docs/a.txt': 'x\n' });
    const result = await rig.run(['init', ...flags]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('found nothing to propose a check from');
    expect(result.stderr).toContain('Makefile test or check target');
    expect(result.stderr).toContain('code: nothing_detected');
    expect(existsSync(rig.path('vouch.yaml'))).toBe(false);
  });
});

describe('vouch checks: what each glob covers', () => {
  const OVERLAPPING =
    'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["**/*.js", "test/*.js", "lib"], tests: ["test/**"]}\n  - {id: ok, run: ["true"], sources: ["index.js"]}\n';

  it('--files lists each covered file with its group; a file both globs match is a test', async () => {
    const rig = new Rig().write({ 'index.js': '', 'test/a.js': '', '.env': 'SECRET=1\n' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["**/*.js", ".env"], tests: ["test/**"]}\n');
    const result = await rig.run(['checks', 't', '--files']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/files \(2: 1 source, 1 test\)\n\s+source\s+index\.js\n\s+test\s+test\/a\.js\n\s+refused\s+\.env \(credential\)/);
    const json = (await rig.run(['checks', '--files', '--json'])).json().checks[0];
    expect(json.files).toEqual([
      { path: 'index.js', group: 'source' },
      { path: 'test/a.js', group: 'test' },
    ]);
    expect(json.refused).toEqual([{ path: '.env', why: 'credential' }]);
  });

  it('warns, with or without --files and in --json, about a glob whose files all went to another group and one matching nothing', async () => {
    const rig = new Rig().write({ 'index.js': '', 'test/a.js': '' });
    await rig.spec(OVERLAPPING);
    for (const args of [['checks'], ['checks', '--files']]) {
      const result = await rig.run(args);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('warning: sources glob "test/*.js" matches 1 file, all taken by tests');
      expect(result.stdout).toContain('warning: sources glob "lib" matches no readable file');
      expect(result.stdout).toContain('1 check has globs that verify would answer UNKNOWN for');
    }
    const json = (await rig.run(['checks', '--json'])).json();
    expect(json.checks[0].warnings).toMatchObject([
      { reason: 'glob_shadowed', field: 'sources', glob: 'test/*.js', matched: 1, lost_to: ['test'] },
      { reason: 'glob_empty', field: 'sources', glob: 'lib', matched: 0, lost_to: [] },
    ]);
    expect(json.checks[0].files).toBeUndefined();
    expect(json.checks[1].warnings).toEqual([]);
    // What the warning predicts is what verify answers.
    const verified = (await rig.run(['verify', 't', '--json'])).json().checks[0];
    expect(verified).toMatchObject({ status: 'UNKNOWN', reason: 'scope_empty' });
  });

  it('an unknown check id is a usage error', async () => {
    const rig = new Rig().write({ 'index.js': '' });
    await rig.spec(OVERLAPPING);
    const result = await rig.run(['checks', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('nope');
  });
});
