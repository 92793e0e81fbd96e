import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TestCounts } from '../core/test-counts.js';
import { TestSummary } from './test-summary.js';

/*
 * Each runner's summary as the runner prints it: the real runner where it
 * is installed here (run in a temp project with one passing, one failing
 * and one skipped test, or none at all), its documented form otherwise.
 */

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-summary-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Runs a real runner; both streams fed as runCommand feeds them, in small chunks. */
function counted(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): TestCounts | null {
  const result = spawnSync(command, args, { cwd, env, encoding: 'buffer', timeout: 300_000 });
  if (result.error) throw result.error;
  return countOf(result.stdout, result.stderr);
}

function countOf(stdout: Buffer | string, stderr: Buffer | string = '', chunk = 7): TestCounts | null {
  const summary = new TestSummary();
  for (const data of [stdout, stderr]) {
    const feed = summary.stream();
    const bytes = Buffer.from(data);
    for (let at = 0; at < bytes.length; at += chunk) feed(bytes.subarray(at, at + chunk));
  }
  return summary.counts();
}

const PYTEST = {
  'test_a.py':
    'import pytest\n\ndef test_ok():\n    pass\n\ndef test_bad():\n    assert False\n\n@pytest.mark.skip\ndef test_skip():\n    pass\n\n@pytest.mark.xfail\ndef test_xfail():\n    assert False\n',
};
const UNITTEST = {
  'test_u.py':
    'import unittest\n\nclass T(unittest.TestCase):\n    def test_ok(self):\n        pass\n\n    def test_bad(self):\n        self.fail()\n\n    @unittest.skip("x")\n    def test_skip(self):\n        pass\n',
};
const NODE = {
  'a.test.mjs':
    "import test from 'node:test';\ntest('ok', () => {});\ntest('bad', () => { throw new Error('x'); });\ntest('skip', { skip: true }, () => {});\ntest('todo', { todo: true }, () => {});\n",
};

describe('test runner summaries read from real runs', () => {
  it('pytest: passed, failed, skipped and xfailed (an expected failure is not a test held to passing)', () => {
    expect(counted('python3', ['-m', 'pytest', '-p', 'no:cacheprovider'], project(PYTEST))).toEqual({
      runner: 'pytest',
      ran: 2,
      passed: 1,
      failed: 1,
      skipped: 2,
    });
    expect(counted('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], project(PYTEST))).toEqual({
      runner: 'pytest',
      ran: 2,
      passed: 1,
      failed: 1,
      skipped: 2,
    });
  });

  it('pytest: every test skipped by a conftest.py, and no test collected at all, ran none', () => {
    const skipped = project({
      ...PYTEST,
      'conftest.py': 'import pytest\n\ndef pytest_collection_modifyitems(items):\n    for item in items:\n        item.add_marker(pytest.mark.skip)\n',
    });
    expect(counted('python3', ['-m', 'pytest', '-p', 'no:cacheprovider'], skipped)).toEqual({ runner: 'pytest', ran: 0, passed: 0, failed: 0, skipped: 4 });
    expect(counted('python3', ['-m', 'pytest', '-p', 'no:cacheprovider'], project({ README: 'x' }))).toEqual({
      runner: 'pytest',
      ran: 0,
      passed: 0,
      failed: 0,
      skipped: 0,
    });
  });

  it('unittest: "Ran N tests" and its status line, skips taken out of the run', () => {
    expect(counted('python3', ['-m', 'unittest', 'test_u'], project(UNITTEST))).toEqual({ runner: 'unittest', ran: 2, passed: 1, failed: 1, skipped: 1 });
    expect(counted('python3', ['-m', 'unittest'], project({ README: 'x' }))).toEqual({ runner: 'unittest', ran: 0, passed: 0, failed: 0, skipped: 0 });
  });

  it('node:test under its TAP and its spec reporters', () => {
    const dir = project(NODE);
    const want = { runner: 'node:test', ran: 2, passed: 1, failed: 1, skipped: 2 };
    expect(counted(process.execPath, ['--test', '--test-reporter=tap'], dir)).toEqual(want);
    expect(counted(process.execPath, ['--test', '--test-reporter=spec'], dir)).toEqual(want);
  });

  it('vitest (colours on): its Tests line', () => {
    // A fixture for a nested vitest run, not a test of this suite: its skip and todo are what the summary must count as skipped.
    const dir = project({
      'a.test.mjs':
        "import { test } from 'vitest';\ntest('ok', () => {});\ntest('bad', () => { throw new Error('x'); });\ntest.skip('skip', () => {});\ntest.todo('todo');\n",
      'package.json': '{"type":"module"}\n',
    });
    const vitest = resolve(import.meta.dirname, '../../node_modules/vitest/vitest.mjs');
    expect(counted(process.execPath, [vitest, 'run', '--root', dir], dir, { ...process.env, FORCE_COLOR: '1', CI: '' })).toEqual({
      runner: 'vitest',
      ran: 2,
      passed: 1,
      failed: 1,
      skipped: 2,
    });
  });

  it('go test -v names each test, subtests too; a plain run says no count; no test files ran none', () => {
    const dir = project({
      'go.mod': 'module example.com/a\n\ngo 1.20\n',
      'a_test.go':
        'package a\n\nimport "testing"\n\nfunc TestOk(t *testing.T) { t.Run("sub", func(t *testing.T) {}) }\nfunc TestSkip(t *testing.T) { t.Skip("no") }\n',
    });
    const env = { ...process.env, GOFLAGS: '-count=1' };
    expect(counted('go', ['test', '-v', './...'], dir, env)).toEqual({ runner: 'go test', ran: 2, passed: 2, failed: 0, skipped: 1 });
    expect(counted('go', ['test', './...'], dir, env)).toBeNull();
    expect(counted('go', ['test', '-run', 'Nothing', './...'], dir, env)).toEqual({ runner: 'go test', ran: 0, passed: 0, failed: 0, skipped: 0 });
  }, 600_000);

  it('cargo test: one summary per test binary, added up (ignored is skipped)', () => {
    const dir = project({
      'Cargo.toml': '[package]\nname = "a"\nversion = "0.1.0"\nedition = "2021"\n',
      'src/lib.rs': '#[cfg(test)]\nmod t {\n    #[test]\n    fn ok() {}\n    #[test]\n    #[ignore]\n    fn ig() {}\n}\n',
      'tests/more.rs': '#[test]\nfn bad() { panic!("x") }\n',
    });
    expect(counted('cargo', ['test', '--offline', '--no-fail-fast'], dir, { ...process.env, CARGO_TARGET_DIR: join(dir, 'target') })).toEqual({
      runner: 'cargo test',
      ran: 2,
      passed: 1,
      failed: 1,
      skipped: 1,
    });
  }, 600_000);
});

describe('test runner summaries in their documented form', () => {
  it.each([
    [
      'jest',
      'Test Suites: 1 failed, 1 passed, 2 total\nTests:       1 failed, 1 skipped, 1 todo, 3 passed, 6 total\nSnapshots:   0 total\nTime:        1.2 s\n',
      { runner: 'jest', ran: 4, passed: 3, failed: 1, skipped: 2 },
    ],
    ['jest, nothing but skips', 'Tests:       5 skipped, 5 total\n', { runner: 'jest', ran: 0, passed: 0, failed: 0, skipped: 5 }],
    ['mocha', '\n  3 passing (12ms)\n  1 pending\n  2 failing\n\n  1) suite\n       fails:\n', { runner: 'mocha', ran: 5, passed: 3, failed: 2, skipped: 1 }],
    ['mocha, nothing run', '\n  0 passing (1ms)\n', { runner: 'mocha', ran: 0, passed: 0, failed: 0, skipped: 0 }],
    [
      'ava',
      '  ✔ one\n  ─\n\n  1 known failure\n  1 test failed\n  2 tests skipped\n  1 test todo\n  4 tests passed\n',
      { runner: 'ava', ran: 5, passed: 4, failed: 1, skipped: 4 },
    ],
    [
      'TAP from another producer (tape)',
      'TAP version 13\nok 1 a\n\n1..1\n# tests 1\n# pass  1\n\n# ok\n',
      { runner: 'node:test', ran: 1, passed: 1, failed: 0, skipped: 0 },
    ],
  ])('%s', (_name, output, want) => {
    expect(countOf(output)).toEqual(want);
  });

  it('two runners in one output (make test running pytest, then node --test) add up', () => {
    expect(countOf('==== 3 passed in 0.1s ====\n', '# tests 2\n# pass 2\n# fail 0\n')).toEqual({
      runner: 'pytest+node:test',
      ran: 5,
      passed: 5,
      failed: 0,
      skipped: 0,
    });
  });

  it('output with no summary vouch knows gives no count, and a stray "2 pending" is no summary', () => {
    expect(countOf('built 3 files in 0.2s\n  2 pending\nok\n')).toBeNull();
  });

  it('a last line without a newline, and a summary split across chunks of one byte, are read', () => {
    expect(countOf('====== 2 passed in 0.01s ======', '', 1)).toEqual({ runner: 'pytest', ran: 2, passed: 2, failed: 0, skipped: 0 });
  });

  it('the two streams never splice: half a summary on each is no summary', () => {
    expect(countOf('==== 2 pass', 'ed in 0.1s ====\n')).toBeNull();
  });
});
