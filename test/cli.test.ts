import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { specJsonSchema } from '../src/spec/json-schema.js';
import { VERSION } from '../src/version.js';
import { Rig } from './helpers/rig.js';

describe('the CLI', () => {
  it('prints its version, equal to package.json', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
    expect((await new Rig().run(['--version'])).stdout.trim()).toBe(pkg.version);
  });

  it('lists every command in --help', async () => {
    const help = (await new Rig().run(['--help'])).stdout;
    for (const command of [
      'init',
      'allow',
      'deny',
      'checks',
      'verify',
      'status',
      'show',
      'log',
      'gc',
      'keys',
      'audit',
      'export',
      'verify-receipt',
      'schema',
      'mcp',
      'sessions',
      'dispatch',
      'fleet',
      'report',
      'install',
      'uninstall',
      'hook',
    ]) {
      expect(help).toMatch(new RegExp(`^  ${command} `, 'm'));
    }
  });

  it.each([
    [['statsu'], 2, /unknown command "statsu" \(did you mean "status"\?\)/],
    [['status', '--bogus'], 2, /vouch status: unknown option "--bogus"/],
    [['show', 'a', 'b'], 2, /expected at most one receipt or check id/],
    [['show', 'x', '--log', '--json'], 2, /--log prints the stored output only/],
    [['gc', '--keep-days', 'ten'], 2, /--keep-days expects an integer/],
    [['log', '--limit', 'ten'], 2, /--limit expects an integer/],
  ])('refuses bad usage %j with exit %i and a message', async (args, code, message) => {
    const rig = new Rig().write({ 'vouch.yaml': 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["vouch.yaml"]}\n' });
    const result = await rig.run(args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
  });

  it('outside any workspace says so with exit 2', async () => {
    const rig = new Rig();
    const result = await rig.run(['status', '--json']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no vouch.yaml in');
    expect(result.json().error.code).toBe('workspace_not_found');
  });

  it('finds the workspace from a subdirectory, and takes -C DIR', async () => {
    const rig = new Rig().write({ 'src/deep/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    expect((await rig.run(['status', '--json'], { cwd: rig.path('src/deep') })).json().checks[0].id).toBe('t');
    expect((await rig.run(['-C', rig.root, 'status', '--json'], { cwd: '/' })).json().checks[0].id).toBe('t');
    expect((await rig.run(['status', '-C', rig.root, '--json'], { cwd: '/' })).json().checks[0].id).toBe('t');
  });

  it('status and verify enter the workspace root only after resolving what the caller named from its own directory (-C, VOUCH_HOME)', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    expect((await rig.run(['keys', 'generate'])).code).toBe(0);
    await rig.spec('version: 1\nsigning_key: default\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    // From the directory holding ws/ and home/, both named relatively.
    const base = dirname(rig.root);
    const relative = { cwd: base, env: { VOUCH_HOME: basename(rig.home) } };
    for (let i = 0; i < 3; i++) {
      const verified = await rig.run(['-C', basename(rig.root), 'verify', '--json'], relative);
      expect(verified.code, verified.stderr).toBe(0);
    }
    const status = await rig.run(['status', '-C', basename(rig.root), '--json'], relative);
    expect(status.json().checks[0]).toMatchObject({ status: 'PASS', reason: 'ok' });
    // The key, the trust record and the caches were found in ./home, never in ws/home.
    expect(existsSync(join(rig.root, basename(rig.home)))).toBe(false);
    expect(existsSync(join(rig.home, 'cache.key'))).toBe(true);
  });

  it('an invalid spec is exit 2 for status and verify, with the location', async () => {
    const rig = new Rig().write({ 'vouch.yaml': 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["x"], timeout: 99999}\n' });
    for (const command of ['status', 'verify', 'checks']) {
      const result = await rig.run([command]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('vouch.yaml:3:53: checks[0].timeout: must be at most 3600');
    }
  });

  it('judges each expectation form', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(`version: 1
checks:
  - {id: exit3, run: ["sh", "-c", "exit 3"], expect: {exit: 3}, sources: ["src/**"]}
  - {id: exit3-wrong, run: ["sh", "-c", "exit 4"], expect: {exit: 3}, sources: ["src/**"]}
  - {id: regex, run: ["echo", "Tests: 12 passed, 0 failed"], expect: {regex: "0 failed"}, sources: ["src/**"]}
  - {id: regex-miss, run: ["echo", "Tests: 0 passed"], expect: {regex: "[1-9][0-9]* passed"}, sources: ["src/**"]}
  - {id: regex-needs-exit0, run: ["sh", "-c", "echo 0 failed; exit 1"], expect: {regex: "0 failed"}, sources: ["src/**"]}
  - {id: file, run: ["touch", "out.txt"], expect: {file_exists: "out.txt"}, sources: ["src/**"]}
  - {id: file-miss, run: ["true"], expect: {file_exists: "nope.txt"}, sources: ["src/**"]}
  - {id: shell, run: "test -f src/a.ts && echo ok | grep -q ok", shell: true, sources: ["src/**"]}
`);
    const result = (await rig.run(['verify', '--json'])).json();
    const byId = Object.fromEntries(result.checks.map((c: { id: string; status: string; reason: string }) => [c.id, `${c.status}/${c.reason}`]));
    expect(byId).toEqual({
      exit3: 'PASS/ok',
      'exit3-wrong': 'FAIL/exit_code',
      regex: 'PASS/ok',
      'regex-miss': 'FAIL/expectation_unmet',
      'regex-needs-exit0': 'FAIL/exit_code',
      file: 'PASS/ok',
      'file-miss': 'FAIL/expectation_unmet',
      shell: 'PASS/ok',
    });
  });

  it('show and log read receipts back; an ambiguous or unknown id is refused', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["echo", "hi"], sources: ["src/**"]}\n');
    const id = (await rig.run(['verify', '--json'])).json().checks[0].receipt as string;
    const shown = await rig.run(['show', id.slice(0, 20)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`receipt   ${id}`);
    expect(shown.stdout).toContain('hi');
    const log = (await rig.run(['log', 't', '--json'])).json();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ id, check_id: 't', verdict: 'PASS', actor: 'cli', intact: true });
    const missing = await rig.run(['show', 'zzzzzzzzzz']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no receipt "zzzzzzzzzz"');
  });

  it('records git HEAD and the dirty flag, and keeps .vouch/ out of git', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    const { execFileSync } = await import('node:child_process');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: rig.root })
        .toString()
        .trim();
    git('init', '-q');
    rig.write({ 'vouch.yaml': 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n' });
    git('add', '.');
    git('commit', '-qm', 'init');
    await rig.run(['allow']);
    const id = (await rig.run(['verify', '--json'])).json().checks[0].receipt;
    const receipt = (await rig.run(['show', id, '--json'])).json().receipt;
    expect(receipt.git).toEqual({ head: git('rev-parse', 'HEAD'), dirty: false });
    expect(git('status', '--porcelain')).toBe('');
  });

  it('calls the tree dirty for a tracked change anywhere or an untracked file in scope, never for an untracked file elsewhere (no full git status)', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a', 'notes.md': 'n' });
    const { execFileSync } = await import('node:child_process');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: rig.root })
        .toString()
        .trim();
    git('init', '-q');
    rig.write({ 'vouch.yaml': 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n' });
    await rig.run(['allow']);
    const recorded = async () => (await rig.run(['show', (await rig.run(['verify', '--json'])).json().checks[0].receipt, '--json'])).json().receipt.git;
    expect(await recorded()).toEqual({ head: null, dirty: true });
    git('add', '.');
    git('commit', '-qm', 'init');
    const head = git('rev-parse', 'HEAD');
    rig.write({ 'scratch/todo.txt': 'x' });
    expect(await recorded()).toEqual({ head, dirty: false });
    rig.write({ 'src/new.ts': 'n' });
    expect(await recorded()).toEqual({ head, dirty: true });
    git('add', 'src/new.ts');
    git('commit', '-qm', 'new');
    rig.write({ 'notes.md': 'changed' });
    expect(await recorded()).toEqual({ head: git('rev-parse', 'HEAD'), dirty: true });
  });

  it('publishes the JSON Schema generated from the validator (schema/vouch.schema.json is in step)', () => {
    const published = JSON.parse(readFileSync(new URL('../schema/vouch.schema.json', import.meta.url), 'utf8'));
    expect(published).toEqual(specJsonSchema());
  });
});

describe('vouch checks', () => {
  it("--json gives the spec's path and hash and every check in full, with its definition digest", async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec(
      'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"], proves: "it runs"}\n  - {id: lint, run: ["true"], sources: ["src/**"], block: false, tier: lane}\n',
    );
    const result = await rig.run(['checks', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const doc = result.json();
    expect(doc.spec).toEqual({ path: rig.path('vouch.yaml'), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(doc.checks.map((c: { id: string }) => c.id)).toEqual(['t', 'lint']);
    expect(doc.checks[0]).toMatchObject({
      id: 't',
      run: ['true'],
      shell: false,
      cwd: '.',
      timeout: 120,
      sources: ['src/**'],
      block: true,
      tier: null,
      proves: 'it runs',
      expect: { kind: 'exit', code: 0 },
      definition_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(doc.checks[1]).toMatchObject({ id: 'lint', block: false, tier: 'lane' });
    // The digest covers what runs and on what, not block, tier or proves (README: what decides STALE).
    expect(doc.checks[0].definition_digest).toBe(doc.checks[1].definition_digest);
    rig.write({ 'vouch.yaml': rig.read('vouch.yaml').replace('{id: lint, run: ["true"]', '{id: lint, run: ["true"], timeout: 60') });
    await rig.run(['allow']);
    const changed = (await rig.run(['checks', '--json'])).json();
    expect(changed.checks[1].definition_digest).not.toBe(doc.checks[1].definition_digest);
  });
});

describe('vouch init', () => {
  it('proposes checks from package.json scripts, with globs that match files', async () => {
    const rig = new Rig().write({
      'package.json': JSON.stringify({ scripts: { test: 'vitest run', lint: 'eslint .' } }),
      'src/index.ts': 'x',
      'test/index.test.ts': 'y',
    });
    const result = await rig.run(['init']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('- id: tests\n    run: ["npm", "test"]');
    expect(result.stdout).toContain('- id: lint\n    run: ["npm", "run", "--silent", "lint"]');
    expect(result.stdout).toContain('tests: ["test/**"]');
    expect(result.stdout).not.toContain('"lib/**"');
  });

  it.each([
    [
      'pyproject.toml',
      { 'pyproject.toml': '[project]\nname = "x"\n', 'tests/test_a.py': 'def test_a(): pass\n', 'a.py': 'x = 1\n' },
      'run: ["env", "PYTHONPATH=.", "python3", "-m", "pytest", "-q"]',
    ],
    ['Cargo.toml', { 'Cargo.toml': '[package]\nname = "x"\n', 'src/main.rs': 'fn main() {}\n' }, 'run: ["cargo", "test"]'],
    ['a Makefile with a test target', { Makefile: 'test:\n\ttrue\n', 'src/a.c': 'int a;\n' }, 'run: ["make", "test"]'],
  ])('detects %s', async (_name, files, expected) => {
    const rig = new Rig().write(files);
    const result = await rig.run(['init']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(expected);
  });

  it('--write writes and allows a spec that validates, and never overwrites one', async () => {
    const rig = new Rig().write({ 'go.mod': 'module x\n', 'main.go': 'package main\n' });
    const written = await rig.run(['init', '--write']);
    expect(written.code).toBe(0);
    expect(rig.read('vouch.yaml')).toContain('run: ["go", "test", "./..."]');
    const checks = await rig.run(['status', '--json']);
    expect(checks.json().checks[0].reason).toBe('no_receipt');
    const again = await rig.run(['init', '--write']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('never overwrites');
  });

  it('with nothing detected prints no placeholder spec: a message and exit 1 (test/init.test.ts has the rest)', async () => {
    const result = await new Rig().run(['init']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('nothing_detected');
  });
});
