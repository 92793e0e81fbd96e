import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coverScopes } from '../scope/coverage.js';
import { Snapshot } from '../scope/snapshot.js';
import { detectChecks, scopeOf, type Proposal } from './detect.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-detect-')));
  dirs.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  return root;
}

/** Detects, and holds every proposal to what init promises: each glob matches files of its own group now. */
async function detect(files: Record<string, string>): Promise<Proposal[]> {
  const root = tree(files);
  const proposals = await detectChecks(root);
  const coverage = await coverScopes(new Snapshot(root, { readStart: new Date() }), proposals.map(scopeOf));
  coverage.forEach((c, i) => {
    expect(c.warnings, proposals[i]!.id).toEqual([]);
    // Input globs are proposed present or not: a file that appears later counts.
    for (const glob of c.globs) if (glob.field !== 'inputs') expect(glob.kept, `${proposals[i]!.id} ${glob.field} ${glob.glob}`).toBeGreaterThan(0);
  });
  return proposals;
}

const UNITTEST = 'import unittest\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        self.assertTrue(True)\n';
const byId = (proposals: readonly Proposal[]) => Object.fromEntries(proposals.map((p) => [p.id, p]));

describe('Python: unittest layouts', () => {
  it.each([
    [
      'a tests/ package beside a package: plain discovery',
      { 'pkg/__init__.py': '', 'pkg/core.py': 'x = 1\n', 'tests/__init__.py': '', 'tests/test_core.py': UNITTEST },
      ['python3', '-m', 'unittest'],
      ['tests/**'],
    ],
    [
      'a tests/ directory that is not a package: discovery must start in it, with the root on the import path (checks run with PYTHONSAFEPATH)',
      { 'calc.py': 'x = 1\n', 'tests/test_calc.py': UNITTEST },
      ['env', 'PYTHONPATH=.', 'python3', '-m', 'unittest', 'discover', '-s', 'tests'],
      ['tests/**'],
    ],
    ['tests beside the code at the root', { 'calc.py': 'x = 1\n', 'test_calc.py': UNITTEST }, ['python3', '-m', 'unittest'], ['**/test*.py']],
    [
      '*_test.py files: discovery needs -p',
      { 'calc.py': 'x = 1\n', 'calc_test.py': UNITTEST },
      ['python3', '-m', 'unittest', 'discover', '-p', '*_test.py'],
      ['**/*_test.py'],
    ],
    [
      'tests inside the package',
      { 'pkg/__init__.py': '', 'pkg/core.py': 'x = 1\n', 'pkg/tests/__init__.py': '', 'pkg/tests/test_core.py': UNITTEST },
      ['python3', '-m', 'unittest'],
      ['**/test*.py'],
    ],
    [
      'a src/ layout: src goes on the import path, or the tests would import an installed copy',
      { 'src/pkg/__init__.py': '', 'src/pkg/core.py': 'x = 1\n', 'tests/test_core.py': UNITTEST, 'pyproject.toml': '[project]\nname = "pkg"\n' },
      ['env', 'PYTHONPATH=src', 'python3', '-m', 'unittest', 'discover', '-s', 'tests'],
      ['tests/**'],
    ],
  ])('%s', async (_name, files, run, tests) => {
    const [proposal, ...rest] = await detect(files);
    expect(rest).toEqual([]);
    expect(proposal).toMatchObject({ id: 'tests', run, tests, sources: ['**/*.py'] });
    // A sourceless .pyc in a directory put on the path would shadow a module of its name: an input.
    const path = run.find((word) => word.startsWith('PYTHONPATH='))?.slice('PYTHONPATH='.length);
    expect(proposal!.inputs).toEqual(path === undefined ? [] : [path === '.' ? '*.pyc' : `${path}/*.pyc`]);
    // Python 3.11 exits 0 having run no test at all: the check wants "Ran N tests", N >= 1.
    expect(proposal!.expectRegex).toBe('Ran [1-9][0-9]* tests? in');
  });

  it('proposes pytest when the project configures it; every file pytest reads settings from, and every conftest.py, present or not, is an input', async () => {
    const [proposal] = await detect({
      'src/pkg/__init__.py': '',
      'tests/test_core.py': UNITTEST,
      'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
      'setup.cfg': '[metadata]\nname = pkg\n',
      'tox.ini': '[tox]\n',
      '.coveragerc': '[run]\n',
    });
    expect(proposal).toMatchObject({
      run: ['python3', '-m', 'pytest', '-q'],
      sources: ['**/*.py'],
      tests: ['tests/**'],
      inputs: ['pytest.toml', '.pytest.toml', 'pytest.ini', '.pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg', '.coveragerc', '**/conftest.py'],
    });
    expect(proposal!.expectRegex).toBeUndefined();
  });

  it('proposes pytest for bare test functions and conftest.py, with the test files anywhere', async () => {
    const [proposal] = await detect({
      'app.py': 'x = 1\n',
      'app_test.py': 'def test_x():\n    assert True\n',
      'lib/test_lib.py': 'def test_y():\n    assert True\n',
      'lib/conftest.py': '',
    });
    // lib/ is not a package: pytest would insert only lib/, and the check runs with PYTHONSAFEPATH, so the root is named.
    expect(proposal).toMatchObject({
      run: ['env', 'PYTHONPATH=.', 'python3', '-m', 'pytest', '-q'],
      sources: ['**/*.py'],
      tests: ['**/test_*.py', '**/*_test.py'],
    });
    expect(proposal!.inputs).toContain('**/conftest.py');
    expect(proposal!.inputs).toContain('*.pyc');
  });

  it("pytest names the root on the path only when a test below it would not reach the root's modules (python3 -m pytest would, by the working directory)", async () => {
    const flat = {
      'calc.py': 'x = 1\n',
      'tests/test_calc.py': 'def test_x():\n    assert True\n',
      'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    };
    expect((await detect(flat))[0]!.run).toEqual(['env', 'PYTHONPATH=.', 'python3', '-m', 'pytest', '-q']);
    // Tests beside the modules: pytest inserts their folder, the root.
    expect((await detect({ 'calc.py': 'x = 1\n', 'test_calc.py': 'def test_x():\n    assert True\n' }))[0]!.run).toEqual(['python3', '-m', 'pytest', '-q']);
    // tests/ a package: pytest inserts the folder above it, the root.
    expect((await detect({ ...flat, 'tests/__init__.py': '' }))[0]!.run).toEqual(['python3', '-m', 'pytest', '-q']);
    // pytest's own pythonpath setting says where the modules are.
    expect((await detect({ ...flat, 'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["."]\n' }))[0]!.run).toEqual(['python3', '-m', 'pytest', '-q']);
    // Nothing at the root to import (a src/ layout without pythonpath is the project's own set-up: installed, or not importable).
    expect(
      (await detect({ 'src/calc/__init__.py': '', 'src/calc/core.py': 'x = 1\n', 'tests/test_calc.py': 'def test_x():\n    assert True\n' }))[0]!.run,
    ).toEqual(['python3', '-m', 'pytest', '-q']);
  });

  it('proposes nothing for Python code without tests, and never covers a virtual environment', async () => {
    expect(await detect({ 'pyproject.toml': '[project]\n', 'pkg/core.py': 'x = 1\n' })).toEqual([]);
    const [proposal] = await detect({ 'calc.py': '', 'test_calc.py': UNITTEST, 'pyenv/pyvenv.cfg': '', 'pyenv/lib/test_site.py': UNITTEST });
    expect(proposal!.exclude).toContain('pyenv/**');
    expect(proposal!.tests).toEqual(['**/test*.py']);
  });
});

describe('npm: scripts, layout and tool configs', () => {
  it('a minimist-shaped package: code at the root is sources, test/ is tests; package.json, the lockfile, .npmrc and the configs of the tools each check runs are its inputs, present or not', async () => {
    const proposals = byId(
      await detect({
        'package.json': JSON.stringify({
          scripts: { lint: 'eslint --ext=js,mjs .', 'tests-only': "nyc tape 'test/**/*.js'", test: 'npm run tests-only', posttest: 'aud --production' },
        }),
        'index.js': '',
        'example/parse.js': '',
        'test/bool.js': '',
        '.eslintrc': '{}',
        '.nycrc': '{}',
        '.editorconfig': '',
      }),
    );
    expect(Object.keys(proposals)).toEqual(['tests', 'lint']);
    const npm = ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', '.npmrc'];
    expect(proposals.tests).toMatchObject({
      run: ['npm', 'test'],
      sources: ['**/*.js'],
      tests: ['test/**'],
      // The programs the scripts start, where npm looks first (none is installed here): a shim dropped there would run instead.
      inputs: [...npm, '.nycrc', '.nycrc.*', 'nyc.config.*', 'node_modules/.bin/aud', 'node_modules/.bin/npm', 'node_modules/.bin/nyc'],
    });
    expect(proposals.lint).toMatchObject({
      run: ['npm', 'run', '--silent', 'lint'],
      sources: ['**/*.js'],
      tests: ['test/**'],
      inputs: [...npm, '.eslintrc', '.eslintrc.*', 'eslint.config.*', '.eslintignore', 'node_modules/.bin/eslint'],
    });
  });

  it('a TypeScript project: each config an input of the check that reads it, colocated tests are tests', async () => {
    const proposals = byId(
      await detect({
        'package.json': JSON.stringify({ scripts: { test: 'vitest run', lint: 'eslint . && prettier --check .', build: 'tsc -p tsconfig.build.json' } }),
        'package-lock.json': '{}',
        'src/index.ts': '',
        'src/util.test.ts': '',
        'test/e2e.test.ts': '',
        'tsconfig.json': '{}',
        'tsconfig.build.json': '{}',
        'eslint.config.js': '',
        '.prettierrc': '{}',
        'vitest.config.ts': '',
      }),
    );
    // `eslint . && prettier --check .`: one check per part, each with its own tool's configs.
    expect(Object.keys(proposals)).toEqual(['tests', 'lint-eslint', 'lint-prettier', 'build', 'typecheck']);
    const base = ['src/**', '*.{js,ts}'];
    const npm = ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', '.npmrc'];
    expect(proposals.tests).toMatchObject({
      sources: base,
      tests: ['test/**', '**/*.{test,spec}.ts'],
      inputs: [...npm, 'vitest.config.*', 'vitest.workspace.*', 'vite.config.*', 'tsconfig*.json', 'node_modules/.bin/vitest'],
    });
    expect(proposals['lint-eslint']).toMatchObject({
      run: ['npx', '--no-install', 'eslint', '.'],
      inputs: [...npm, '.eslintrc', '.eslintrc.*', 'eslint.config.*', '.eslintignore', 'node_modules/.bin/eslint'],
    });
    expect(proposals['lint-prettier']).toMatchObject({
      run: ['npx', '--no-install', 'prettier', '--check', '.'],
      inputs: [...npm, '.prettierrc', '.prettierrc.*', 'prettier.config.*', '.prettierignore', 'node_modules/.bin/prettier'],
    });
    expect(proposals.build).toMatchObject({ sources: base, tests: [], inputs: [...npm, 'tsconfig*.json', 'node_modules/.bin/tsc'] });
    expect(proposals.typecheck).toMatchObject({
      run: ['npx', '--no-install', 'tsc', '--noEmit'],
      sources: base,
      inputs: [...npm, 'tsconfig*.json', 'node_modules/.bin/tsc'],
    });
  });

  it("the files a script names are in its check's scope; src/spec/ is code, src/**/test/ is tests", async () => {
    const proposals = byId(
      await detect({
        'package.json': JSON.stringify({ scripts: { build: 'node ./scripts/build.mjs && node scripts/missing.mjs', test: 'node --test src/' } }),
        'scripts/build.mjs': '',
        'src/spec/parse.js': '',
        'src/util/test/helper.js': '',
      }),
    );
    expect(proposals['build-node']).toMatchObject({ run: ['node', './scripts/build.mjs'], sources: ['src/**', 'scripts/build.mjs'], tests: [] });
    expect(proposals['build-node-2']).toMatchObject({ run: ['node', 'scripts/missing.mjs'], sources: ['src/**'], tests: [] });
    expect(proposals.tests).toMatchObject({ sources: ['src/**'], tests: ['**/test/**'] });
    expect(proposals.tests!.inputs).toContain('node_modules/.bin/node');
    // A dependency's bin is the dependency's: not an input.
    const installed = byId(
      await detect({ 'package.json': JSON.stringify({ scripts: { test: 'vitest run & node x.js' } }), 'node_modules/.bin/vitest': '', 'src/a.js': '' }),
    );
    expect(installed.tests!.inputs.filter((glob) => glob.startsWith('node_modules/'))).toEqual(['node_modules/.bin/node']);
  });

  it('a yarn project: yarn runs the scripts, and its settings are inputs', async () => {
    const [tests] = await detect({
      'package.json': JSON.stringify({ scripts: { test: 'mocha' } }),
      'yarn.lock': '',
      '.yarnrc.yml': '',
      '.mocharc.yml': '',
      'lib/a.js': '',
      'test/a.js': '',
    });
    expect(tests).toMatchObject({
      run: ['yarn', 'test'],
      sources: ['lib/**'],
      tests: ['test/**'],
      inputs: ['package.json', 'yarn.lock', '.yarnrc', '.yarnrc.yml', '.pnp.cjs', '.npmrc', '.mocharc', '.mocharc.*', 'node_modules/.bin/mocha'],
    });
  });

  it('no test script placeholder, no check; a second "tests" is named for its family', async () => {
    const placeholder = await detect({ 'package.json': JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' } }), 'index.js': '' });
    expect(placeholder).toEqual([]);
    const both = await detect({
      'package.json': JSON.stringify({ scripts: { test: 'node test.js' } }),
      'test.js': '',
      'tests/test_a.py': 'def test_a():\n    pass\n',
    });
    expect(both.map((p) => p.id)).toEqual(['tests', 'tests-python']);
  });
});

describe('Makefile', () => {
  it('a check target, its includes, the sources by kind (not what make writes) and the test directories', async () => {
    const [proposal, ...rest] = await detect({
      Makefile: 'VERSION := 1\ninclude rules.mk\ncheck: build/t\n\t./build/t\n',
      'rules.mk': '',
      'src/add.c': '',
      'src/add.h': '',
      'src/add.o': '',
      'tests/t.c': '',
      'build/t': '',
    });
    expect(rest).toEqual([]);
    expect(proposal).toMatchObject({
      id: 'make-check',
      run: ['make', 'check'],
      sources: ['**/*.{c,h}'],
      tests: ['tests/**'],
      inputs: ['GNUmakefile', 'makefile', 'Makefile', '*.mk', 'rules.mk'],
    });
  });

  it('a variable named test is not a target', async () => {
    expect(await detect({ Makefile: 'test := yes\nall:\n\ttrue\n', 'a.sh': '' })).toEqual([]);
  });
});

describe('Go and Cargo', () => {
  it('keeps only the globs that match files: _test.go files are tests when there are some', async () => {
    const bare = byId(await detect({ 'go.mod': 'module x\n', 'main.go': 'package main\n' }));
    expect(bare.tests).toMatchObject({ sources: ['**/*.go'], tests: [], inputs: ['go.mod', 'go.sum', 'go.work', 'go.work.sum', 'vendor/modules.txt'] });
    const tested = byId(await detect({ 'go.mod': 'module x\n', 'go.sum': '', 'a/a.go': '', 'a/a_test.go': '', 'a/testdata/in.txt': '' }));
    expect(tested.vet).toMatchObject({ sources: ['**/*.go'], tests: ['**/*_test.go', '**/testdata/**'] });
  });

  it('a crate: tests/ only when it exists', async () => {
    const [crate] = await detect({ 'Cargo.toml': '[package]\n', 'Cargo.lock': '', 'src/lib.rs': '' });
    expect(crate).toMatchObject({
      run: ['cargo', 'test'],
      sources: ['**/*.rs'],
      tests: [],
      inputs: ['Cargo.toml', 'Cargo.lock', 'rust-toolchain.toml', 'rust-toolchain', '.cargo/config.toml', '.cargo/config'],
    });
  });
});

describe('nothing to propose', () => {
  it('an empty directory or unrelated files give no proposal, not a placeholder', async () => {
    expect(await detect({})).toEqual([]);
    expect(await detect({ 'README.md': '# hi\n', 'notes/a.txt': '' })).toEqual([]);
  });
});
