import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, Rig } from './helpers/rig.js';

// `vouch checks --trace ID` runs a check once under the real strace and
// names what it used outside its proof. CI installs strace (.ci/run).
const HAS_STRACE = existsSync('/usr/bin/strace');
const PYTEST = spawnSync('/usr/bin/python3', ['-m', 'pytest', '--version']).status === 0;
/** In CI every tool is installed (.ci/run): a missing one fails there, never skips. */
const CI = process.env.CI === 'true';

const NODE_PROJECT = {
  'package.json': '{"name": "add", "version": "1.0.0", "type": "commonjs"}\n',
  'src/add.js': 'module.exports = (a, b) => a + b;\n',
  'test/add.test.js':
    "const test = require('node:test');\nconst assert = require('node:assert');\nconst add = require('../src/add.js');\ntest('add', () => assert.strictEqual(add(1, 2), 3));\n",
};

const PYTEST_PROJECT = {
  'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["src"]\ntestpaths = ["tests"]\n',
  'conftest.py': 'import pytest\n\n@pytest.fixture\ndef three():\n    return 3\n',
  'src/calc.py': 'def add(a, b):\n    return a + b\n',
  'tests/test_calc.py': 'from calc import add\n\ndef test_add(three):\n    assert add(1, 2) == three\n',
};

async function trace(rig: Rig, id: string) {
  const result = await rig.run(['checks', '--trace', id, '--json'], { timeoutMs: 120_000 });
  expect(result.code, result.stderr).toBe(0);
  return result.json();
}

const paths = (list: { path: string }[]) => list.map((file) => file.path);

// Skipped only on a developer machine without strace (the tracer); .ci/run installs it, so in CI these always run.
describe.skipIf(!HAS_STRACE && !CI)('vouch checks --trace: what a check reads outside its proof', () => {
  it('a real node --test project: names package.json (read, not declared) and the inputs: line that covers it; nothing in its proof; no receipt', async () => {
    const rig = new Rig().write(NODE_PROJECT);
    await rig.spec('version: 1\nchecks:\n  - {id: tests, run: ["node", "--test", "test/"], sources: ["src/**"], tests: ["test/**"]}\n');
    const found = await trace(rig, 'tests');
    expect(found).toMatchObject({ check: 'tests', receipt: null, run: { exit_code: 0, tracer: '/usr/bin/strace' } });
    expect(paths(found.files.workspace)).toContain('package.json');
    expect(found.files.workspace.find((f: any) => f.path === 'package.json')).toMatchObject({ how: 'read', written: false });
    // The declared files are the proof: not listed.
    expect(paths(found.files.workspace)).not.toContain('src/add.js');
    expect(paths(found.files.workspace)).not.toContain('test/add.test.js');
    expect(found.inputs).toEqual(['package.json']);
    expect(found.files.system.some((f: any) => f.how === 'exec' && f.path.endsWith('/node'))).toBe(true);
    const text = await rig.run(['checks', '--trace', 'tests']);
    expect(text.stdout).toContain('inputs: ["package.json"]');
    expect(text.stdout).toMatch(/workspace \(\d+\)\n(.*\n)*\s+read package\.json/);
    // Nothing recorded: a trace is a diagnosis, not evidence.
    expect((await rig.run(['log', '--json'])).json()).toEqual([]);
    // Once declared (and allowed), it is in the proof and no longer listed.
    await rig.spec(
      'version: 1\nchecks:\n  - {id: tests, run: ["node", "--test", "test/"], inputs: ["package.json"], sources: ["src/**"], tests: ["test/**"]}\n',
    );
    expect(paths((await trace(rig, 'tests')).files.workspace)).not.toContain('package.json');
  });

  // Needs /usr/bin/python3 with pytest (python3-pytest); .ci/run installs it, so in CI this always runs.
  it.skipIf(!PYTEST && !CI)('a real pytest project: names pyproject.toml and conftest.py when they are read and not declared', async () => {
    const rig = new Rig().write(PYTEST_PROJECT);
    await rig.spec(
      'version: 1\nchecks:\n  - {id: pytest, run: ["/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider"], sources: ["src/**"], tests: ["tests/**"]}\n',
    );
    const found = await trace(rig, 'pytest');
    expect(found.run.exit_code).toBe(0);
    expect(paths(found.files.workspace)).toEqual(expect.arrayContaining(['pyproject.toml', 'conftest.py']));
    expect(found.inputs).toEqual(expect.arrayContaining(['pyproject.toml', 'conftest.py']));
    expect(paths(found.files.workspace)).not.toContain('tests/test_calc.py');
    await rig.spec(
      'version: 1\nchecks:\n  - {id: pytest, run: ["/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider"], inputs: ["pyproject.toml", "conftest.py"], sources: ["src/**"], tests: ["tests/**"]}\n',
    );
    const again = await trace(rig, 'pytest');
    expect(paths(again.files.workspace)).not.toContain('pyproject.toml');
    expect(paths(again.files.workspace)).not.toContain('conftest.py');
  });

  it('a file only looked for (stat) counts too, and files under HOME are grouped as home', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a', SKIP: '' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["sh", "-c", "test -e SKIP && cat \\"$HOME/.toolrc\\" >/dev/null"], sources: ["src/**"]}\n');
    rig.write({ '../home/.toolrc': 'x' });
    const found = await trace(rig, 't');
    expect(found.files.workspace).toEqual([{ path: 'SKIP', how: 'look', written: false }]);
    expect(found.files.home).toEqual([{ path: '~/.toolrc', how: 'read', written: false }]);
  });

  it('a spec that is not allowed is not traced (exit 2); --trace with other arguments is a usage error', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a', 'vouch.yaml': 'version: 1\nchecks:\n  - {id: t, run: ["sh", "-c", "touch ran"], sources: ["src/**"]}\n' });
    const refused = await rig.run(['checks', '--trace', 't']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/nothing was traced: .*never allowed/);
    expect(existsSync(rig.path('ran'))).toBe(false);
    await rig.run(['allow']);
    expect((await rig.run(['checks', '--trace', 't', 'other'])).code).toBe(2);
    expect((await rig.run(['checks', '--trace', 'nope'])).code).toBe(2);
  });

  it('no tracer that works: strace missing, or vouch itself run under a tracer (ptrace refused): exit 7 with what to do', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    const env = { ...rig.env(), PATH: '/usr/bin:/bin' };
    const missing = spawnSync(
      '/usr/bin/bwrap',
      [
        '--bind',
        '/',
        '/',
        '--ro-bind',
        '/dev/null',
        '/usr/bin/strace',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--',
        process.execPath,
        CLI,
        'checks',
        '--trace',
        't',
      ],
      { cwd: rig.root, env, encoding: 'utf8' },
    );
    expect(missing.status, missing.stderr).toBe(7);
    expect(missing.stderr).toMatch(/strace is not installed/);
    expect(missing.stderr).toMatch(/apt-get install strace/);
    const traced = spawnSync('/usr/bin/strace', ['-f', '-qq', '-o', '/dev/null', process.execPath, CLI, 'checks', '--trace', 't', '--json'], {
      cwd: rig.root,
      env,
      encoding: 'utf8',
    });
    expect(traced.status, traced.stderr).toBe(7);
    expect(JSON.parse(traced.stdout)).toMatchObject({ ok: false, error: { code: 'tracer_unavailable' } });
    expect(traced.stderr).toMatch(/cannot trace here: .*Operation not permitted/);
  });
});
