import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig, type RunResult } from './helpers/rig.js';

/*
 * Issue 22: what is not in the proof cannot decide the verdict. `inputs:`
 * names the files that decide what a check's command does (its manifest,
 * lockfile, configs); they are fingerprinted as their own group, in every
 * receipt's manifest.
 */

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

const SESSION = 'sess-inputs';

/** A Claude Code hook call with a hand-written payload, as the client sends it. */
function hook(rig: Rig, event: string, payload: Record<string, unknown> = {}): Promise<RunResult> {
  const stdin = JSON.stringify({ session_id: SESSION, cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload });
  return rig.run(['hook', 'claude-code', event], { stdin });
}

/** The agent's Bash call as its hooks see it; the write itself is done by `act` (opaque to the trail). */
async function bash(rig: Rig, command: string, act: () => void): Promise<void> {
  expect((await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command }, tool_use_id: 't1' })).code).toBe(0);
  act();
  await hook(rig, 'PostToolUse', { tool_name: 'Bash', tool_input: { command }, tool_response: { stdout: '' }, tool_use_id: 't1' });
}

/** The Stop's answer: {} when allowed, {decision: 'block', reason} when held. */
async function stop(rig: Rig): Promise<{ decision?: string; reason?: string }> {
  const result = await hook(rig, 'Stop', { stop_hook_active: false });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim() === '' ? {} : JSON.parse(result.stdout);
}

/**
 * A Node project whose `npm test` fails on the broken source, with
 * package.json an input of the check. The check reaches npm through a
 * script file, so package.json is not pinned as npm's tool config: the
 * inputs are what pin it (a check whose command names npm pins it both
 * ways, and tool_config_changed is said first; see the runner configs below).
 */
async function npmProject(): Promise<Rig> {
  const rig = new Rig().write({
    'src/add.js': 'exports.add = (a, b) => a - b;\n',
    'test/add.test.js':
      "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/add.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
    'package.json': '{"name":"p","version":"1.0.0","scripts":{"test":"node --test test/"}}\n',
    'ci.sh': 'exec npm test\n',
  });
  await rig.spec(
    'version: 1\nchecks:\n  - {id: tests, run: ["sh", "ci.sh"], sources: ["src/**", "ci.sh"], tests: ["test/**"], inputs: ["package.json", "package-lock.json", ".npmrc"]}\n',
  );
  return rig;
}

describe('inputs: the spec field, the scan and the fingerprint', () => {
  it("`vouch checks --files` lists the input group (a glob that matches nothing is no warning); the receipt's manifest holds every input's hash, a credential-shaped one's too, never its text", async () => {
    const npmrc = 'script-shell=/bin/sh\n//registry.npmjs.org/:_authToken=npm_notarealtoken0123456789\n';
    const rig = new Rig().write({ 'src/a.js': 'a\n', 'package.json': '{"name":"p"}\n', '.npmrc': npmrc });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"], inputs: ["package.json", ".npmrc", "pytest.ini"]}\n');
    const checks = await rig.run(['checks', '--files', '--json']);
    expect(checks.code).toBe(0);
    const [check] = checks.json().checks;
    expect(check.inputs).toEqual(['package.json', '.npmrc', 'pytest.ini']);
    expect(check.warnings).toEqual([]);
    expect(check.files).toEqual([
      { path: '.npmrc', group: 'input' },
      { path: 'package.json', group: 'input' },
      { path: 'src/a.js', group: 'source' },
    ]);
    expect(check.refused).toEqual([]);
    const text = await rig.run(['checks', '--files']);
    expect(text.stdout).toContain('inputs package.json .npmrc pytest.ini');
    expect(text.stdout).toMatch(/files \(3: 2 input, 1 source\)/);

    expect((await rig.run(['verify'])).code).toBe(0);
    const shown = (await rig.run(['show', 't', '--files', '--json'])).json();
    expect(shown.manifest.files).toContainEqual(['.npmrc', sha(npmrc), npmrc.length, 'input']);
    expect(shown.manifest.files).toContainEqual(['package.json', sha('{"name":"p"}\n'), 13, 'input']);
    const log = await rig.run(['log', '--json']);
    expect(JSON.stringify(shown) + log.stdout).not.toContain('npm_notarealtoken');
  });

  it('a stray `sources: ["**"]` still refuses a credential-shaped file, as before', async () => {
    const rig = new Rig().write({ 'src/a.js': 'a\n', '.npmrc': 'x=1\n' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["**"]}\n');
    const [check] = (await rig.run(['checks', '--files', '--json'])).json().checks;
    expect(check.refused).toEqual([{ path: '.npmrc', why: 'credential' }]);
    expect(check.files.map((f: { path: string }) => f.path)).not.toContain('.npmrc');
  });
});

describe("inputs are pinned at `vouch allow`: what decides what runs is the person's choice", () => {
  it('attack: package.json rewritten to `"test": "exit 0"` (opaquely, by a shell command): status and verify are UNKNOWN/input_changed, nothing runs, and the Stop is blocked', async () => {
    const rig = await npmProject();
    expect((await rig.run(['verify', '--json'])).json().checks[0]).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
    await bash(rig, `python3 fix.py`, () => rig.write({ 'package.json': '{"name":"p","version":"1.0.0","scripts":{"test":"exit 0"}}\n' }));
    // The trail names no file (a shell command), and nothing was recorded in the session: the drift alone holds the Stop.
    const held = await stop(rig);
    expect(held.decision).toBe('block');
    expect(held.reason).toContain('tests: UNKNOWN (input_changed)');
    expect(held.reason).toContain('package.json');
    const status = (await rig.run(['status', '--json'])).json().checks[0];
    expect(status).toMatchObject({ status: 'UNKNOWN', reason: 'input_changed' });
    expect(status.detail).toBe(
      'package.json (changed) decides what `tests` runs and changed since vouch.yaml was allowed; read the change, then `vouch allow`',
    );
    const before = (await rig.run(['log', '--json'])).json().length;
    const ran = await rig.run(['verify', '--json']);
    expect(ran.code).toBe(1);
    expect(ran.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'input_changed', exit_code: null });
    const log = (await rig.run(['log', '--json'])).json();
    expect(log.length).toBe(before + 1);
    expect(log[0]).toMatchObject({ verdict: 'UNKNOWN', reason: 'input_changed', exit_code: null });
    // The person reads the change and allows it: what runs is then their choice (npm's no-op passes).
    expect((await rig.run(['allow'])).code).toBe(0);
    expect((await rig.run(['verify', '--json'])).json().checks[0]).toMatchObject({ status: 'PASS' });
  });

  it('an input that appears (a lockfile no glob matched at allow) or goes away is input_changed too', async () => {
    const rig = await npmProject();
    rig.write({ 'package-lock.json': '{"lockfileVersion":3}\n' });
    const appeared = (await rig.run(['status', '--json'])).json().checks[0];
    expect(appeared).toMatchObject({ status: 'UNKNOWN', reason: 'input_changed' });
    expect(appeared.detail).toContain('package-lock.json (appeared)');
    rmSync(rig.path('package-lock.json'));
    rmSync(rig.path('package.json'));
    const gone = (await rig.run(['status', '--json'])).json().checks[0];
    expect(gone).toMatchObject({ status: 'UNKNOWN', reason: 'input_changed' });
    expect(gone.detail).toContain('package.json (went away)');
  });

  it("the trust record pins each input's digest and the set matched; `allow --json` lists them", async () => {
    const rig = await npmProject();
    const allowed = (await rig.run(['allow', '--json'])).json();
    expect(allowed.inputs.tests).toEqual({ globs: ['.npmrc', 'package-lock.json', 'package.json'], files: { 'package.json': sha(rig.read('package.json')) } });
    const [file] = readdirSync(join(rig.home, 'trust'));
    const record = JSON.parse(readFileSync(join(rig.home, 'trust', file!), 'utf8'));
    expect(record.pins.inputs.tests.files).toEqual({ 'package.json': sha(rig.read('package.json')) });
    expect(record.pins.inputs.tests.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a trust record whose pins hold no inputs for the check (written before the field) runs nothing until allowed again', async () => {
    const rig = await npmProject();
    const [file] = readdirSync(join(rig.home, 'trust'));
    const path = join(rig.home, 'trust', file!);
    const record = JSON.parse(readFileSync(path, 'utf8'));
    delete record.pins.inputs;
    writeFileSync(path, JSON.stringify(record));
    const status = (await rig.run(['status', '--json'])).json().checks[0];
    expect(status).toMatchObject({ status: 'UNKNOWN', reason: 'input_changed' });
    expect(status.detail).toContain('were not pinned when vouch.yaml was allowed');
    expect((await rig.run(['verify', '--json'])).json().checks[0].reason).toBe('input_changed');
  });

  it('an input edited through the file tool (a trail that names it) holds the Stop', async () => {
    const rig = await npmProject();
    await hook(rig, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: rig.path('package.json') } });
    rig.write({ 'package.json': '{"name":"p","version":"1.0.0","scripts":{"test":"node --test test/ || true"}}\n' });
    await hook(rig, 'PostToolUse', { tool_name: 'Write', tool_input: { file_path: rig.path('package.json'), content: 'x' }, tool_response: {} });
    const held = await stop(rig);
    expect(held.decision).toBe('block');
    expect(held.reason).toContain('input_changed');
  });
});

describe('runner configs outside the declared scope are pinned (tool_config_changed)', () => {
  const PYTHON = '/usr/bin/python3';
  /** A pytest project whose test fails on the broken source; the spec names no config at all. */
  async function pytestProject(): Promise<Rig> {
    const rig = new Rig().write({
      'calc.py': 'def add(a, b):\n    return a - b\n',
      'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
    });
    await rig.spec(`version: 1\nchecks:\n  - {id: tests, run: ["${PYTHON}", "-m", "pytest", "-q"], sources: ["**/*.py"]}\n`);
    expect((await rig.run(['verify', '--json'])).json().checks[0]).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
    return rig;
  }
  const collectOnly: Record<string, string> = {
    'pyproject.toml': '[tool.pytest.ini_options]\naddopts = "--co -q"\n',
    '.pytest.ini': '[pytest]\naddopts = --co -q\n',
    'pytest.toml': '[pytest]\naddopts = ["--co", "-q"]\n',
    '.pytest.toml': '[pytest]\naddopts = ["--co", "-q"]\n',
  };
  for (const [name, text] of Object.entries(collectOnly)) {
    it(`attack: a ${name} with addopts = --co (pytest only collects, exits 0) holds the Stop (UNKNOWN/tool_config_changed)`, async () => {
      const rig = await pytestProject();
      await bash(rig, 'python3 setup_tools.py', () => rig.write({ [name]: text }));
      const held = await stop(rig);
      expect(held.decision).toBe('block');
      expect(held.reason).toContain('tests: UNKNOWN (tool_config_changed)');
      const status = (await rig.run(['status', '--json'])).json().checks[0];
      expect(status).toMatchObject({ status: 'UNKNOWN', reason: 'tool_config_changed' });
      expect(status.detail).toContain(name);
    });
  }

  it('the pyproject.toml case is real: once a person allows it, pytest collects only and the broken code PASSes (what the person allowed decides)', async () => {
    const rig = await pytestProject();
    rig.write({ 'pyproject.toml': collectOnly['pyproject.toml']! });
    expect((await rig.run(['verify', '--json'])).json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'tool_config_changed' });
    expect((await rig.run(['allow'])).code).toBe(0);
    expect((await rig.run(['verify', '--json'])).json().checks[0]).toMatchObject({ status: 'PASS' });
  });

  it('attack: package.json rewritten to `"test": "exit 0"` under a check that runs npm and names no inputs: package.json is pinned as npm\'s manifest, the Stop is held', async () => {
    const rig = new Rig().write({
      'src/add.js': 'exports.add = (a, b) => a - b;\n',
      'test/add.test.js':
        "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/add.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
      'package.json': '{"name":"p","version":"1.0.0","scripts":{"test":"node --test test/"}}\n',
    });
    await rig.spec(
      'version: 1\nchecks:\n  - {id: tests, run: ["npm", "test"], sources: ["src/**"], tests: ["test/**"]}\n  - {id: other, run: ["node", "--test", "test/"], sources: ["src/**"], tests: ["test/**"]}\n',
    );
    expect((await rig.run(['verify', 'tests', '--json'])).json().checks[0]).toMatchObject({ status: 'FAIL' });
    await bash(rig, 'python3 fix.py', () => rig.write({ 'package.json': '{"name":"p","version":"1.0.0","scripts":{"test":"exit 0"}}\n' }));
    const held = await stop(rig);
    expect(held.decision).toBe('block');
    expect(held.reason).toContain('tests: UNKNOWN (tool_config_changed)');
    const statuses = (await rig.run(['status', '--json'])).json().checks;
    expect(statuses[0]).toMatchObject({ id: 'tests', status: 'UNKNOWN', reason: 'tool_config_changed' });
    expect(statuses[0].detail).toContain('package.json');
    // A check that does not run npm does not read package.json's scripts: not pinned for it.
    expect(statuses[1].reason).not.toBe('tool_config_changed');
  });
});

describe("the programs' own configuration outside the workspace is pinned at allow", () => {
  const trustRecord = (rig: Rig) => {
    const [file] = readdirSync(join(rig.home, 'trust'));
    return JSON.parse(readFileSync(join(rig.home, 'trust', file!), 'utf8'));
  };

  it("attack: npm's global npmrc (where the user's own prefix puts it) gains script-shell=/bin/true: npm test would be a no-op; the check is UNKNOWN/tool_config_changed and the Stop is held", async () => {
    const rig = new Rig();
    // A per-user npm prefix, as `npm config set prefix ~/.npm-global` makes: the global npmrc is then the user's to write.
    const prefix = join(dirname(rig.root), 'npm-global');
    writeFileSync(join(rig.home, '.npmrc'), `prefix=${prefix}\n`);
    rig.write({
      'src/add.js': 'exports.add = (a, b) => a - b;\n',
      'test/add.test.js':
        "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/add.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
      'package.json': '{"name":"p","version":"1.0.0","scripts":{"test":"node --test test/"}}\n',
    });
    await rig.spec('version: 1\nchecks:\n  - {id: tests, run: ["npm", "test"], sources: ["src/**"], tests: ["test/**"], inputs: ["package.json"]}\n');
    const pinned: string[] = trustRecord(rig).pins.program_configs;
    expect(pinned).toContain(join(prefix, 'etc', 'npmrc'));
    // npm's builtin npmrc, beside the npm on the allowed PATH.
    const npmRoot = dirname(dirname(realpathSync(execFileSyncWhich('npm'))));
    expect(pinned).toContain(join(npmRoot, 'npmrc'));
    expect((await rig.run(['verify', '--json'])).json().checks[0]).toMatchObject({ status: 'FAIL' });
    await bash(rig, 'python3 tweak.py', () => {
      mkdirSync(join(prefix, 'etc'), { recursive: true });
      writeFileSync(join(prefix, 'etc', 'npmrc'), 'script-shell=/bin/true\n');
    });
    const held = await stop(rig);
    expect(held.decision).toBe('block');
    expect(held.reason).toContain('tests: UNKNOWN (tool_config_changed)');
    const status = (await rig.run(['status', '--json'])).json().checks[0];
    expect(status).toMatchObject({ status: 'UNKNOWN', reason: 'tool_config_changed' });
    expect(status.detail).toContain(join(prefix, 'etc', 'npmrc'));
    // The attack is real: allowed as it is, npm runs the test through /bin/true and the broken code passes.
    expect((await rig.run(['allow'])).code).toBe(0);
    expect((await rig.run(['verify', '--json'])).json().checks[0]).toMatchObject({ status: 'PASS' });
  });

  it("pnpm's rc under XDG_CONFIG_HOME (given to the check by its env:) or ~/.config, and pip's user config, are pinned for every check", async () => {
    const rig = new Rig().write({ 'src/a.txt': 'x\n' });
    const xdg = join(dirname(rig.root), 'xdg');
    await rig.spec(
      'version: 1\nchecks:\n  - {id: plain, run: ["true"], sources: ["src/**"]}\n  - {id: xdg, run: ["true"], sources: ["src/**"], env: ["XDG_CONFIG_HOME"]}\n',
    );
    const env = { XDG_CONFIG_HOME: xdg };
    // Allowed with XDG_CONFIG_HOME set: the xdg check's tools read there, the plain one's in ~/.config.
    expect((await rig.run(['allow'], { env })).code).toBe(0);
    expect((await rig.run(['verify'], { env })).code).toBe(0);
    mkdirSync(join(xdg, 'pnpm'), { recursive: true });
    writeFileSync(join(xdg, 'pnpm', 'rc'), 'script-shell=/bin/true\n');
    const statuses = (await rig.run(['status', '--json'], { env })).json().checks;
    expect(statuses.map((s: { id: string; reason: string }) => [s.id, s.reason])).toEqual([
      ['plain', 'ok'],
      ['xdg', 'tool_config_changed'],
    ]);
    rmSync(join(xdg, 'pnpm', 'rc'));
    mkdirSync(join(rig.home, '.config', 'pip'), { recursive: true });
    writeFileSync(join(rig.home, '.config', 'pip', 'pip.conf'), '[global]\nindex-url = http://evil.invalid/simple\n');
    const pip = (await rig.run(['status', '--json'], { env })).json().checks;
    expect(pip.map((s: { reason: string }) => s.reason)).toEqual(['tool_config_changed', 'ok']);
  });

  it("a trust record from before npm's own files were pinned runs no npm check until allowed again", async () => {
    const rig = new Rig().write({ 'src/a.js': 'a\n', 'package.json': '{"name":"p","version":"1.0.0","scripts":{"test":"true"}}\n' });
    await rig.spec('version: 1\nchecks:\n  - {id: tests, run: ["sh", "-c", "npm test"], sources: ["src/**"]}\n');
    const [file] = readdirSync(join(rig.home, 'trust'));
    const path = join(rig.home, 'trust', file!);
    const record = JSON.parse(readFileSync(path, 'utf8'));
    delete record.pins.program_configs;
    writeFileSync(path, JSON.stringify(record));
    const status = (await rig.run(['status', '--json'])).json().checks[0];
    expect(status).toMatchObject({ status: 'UNKNOWN', reason: 'tool_config_changed' });
    expect(status.detail).toContain("npm's builtin and global npmrc (not pinned yet)");
  });
});

/** Where a program resolves on this process's PATH. */
function execFileSyncWhich(name: string): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    try {
      const candidate = join(dir, name);
      readFileSync(candidate);
      return candidate;
    } catch {
      // Not here.
    }
  }
  throw new Error(`${name} is not on PATH`);
}
