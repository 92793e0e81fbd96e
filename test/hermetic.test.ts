import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, Rig } from './helpers/rig.js';
import { Swapper } from './helpers/swapper.js';

// Hermetic mode (src/hermetic): a check sees only a private copy of its
// declared files, in a real bubblewrap sandbox. Each attack below makes a
// PASS out of broken code when the check runs in the workspace itself.

const HAS_BWRAP = existsSync('/usr/bin/bwrap');
const PYTEST = spawnSync('/usr/bin/python3', ['-m', 'pytest', '--version']).status === 0;
/** In CI every tool is installed (.ci/run): a missing one fails there, never skips. */
const CI = process.env.CI === 'true';

const ADD_BROKEN = 'module.exports = (a, b) => a - b;\n';
const ADD_GOOD = 'module.exports = (a, b) => a + b;\n';
const ADD_TEST = `const add = require('../src/add.js');
const got = add(1, 2);
if (got !== 3) { console.error('add(1, 2) returned ' + got); process.exit(1); }
console.log('ok');
`;

const swappers: Swapper[] = [];
afterEach(() => {
  for (const swapper of swappers.splice(0)) swapper.kill();
});

/** A workspace with add() in src/, its test, and the spec given. */
async function project(spec: string, files: Record<string, string> = {}): Promise<Rig> {
  const rig = new Rig().write({ 'src/add.js': ADD_GOOD, 'test/add.test.js': ADD_TEST, ...files });
  await rig.spec(spec);
  return rig;
}

async function verify(rig: Rig, ...ids: string[]) {
  const result = await rig.run(['verify', ...ids, '--json']);
  const checks = result.json().checks as { id: string; status: string; reason: string; receipt: string | null; detail: string | null }[];
  return { result, checks, one: checks[0]! };
}

async function receipt(rig: Rig, id: string) {
  return (await rig.run(['show', id, '--json'])).json();
}

// Skipped only where bubblewrap is missing, outside CI; CI installs it (.ci/run) and always runs them.
describe.skipIf(!HAS_BWRAP && !CI)('hermetic mode: a check sees only its proof', () => {
  it('node --test passes on a private copy; the receipt records the sandbox and what it showed; nothing else of the workspace or HOME is there', async () => {
    const rig = await project(
      `version: 1
hermetic: true
checks:
  - id: tests
    run: ["node", "--test", "test/"]
    sources: ["src/**"]
    tests: ["test/**"]
  - id: looks
    run: ["sh", "-c", "test ! -e notes.txt && test ! -e vouch.yaml && test ! -e .vouch && test -z \\"$(ls -A \\"$HOME\\")\\" && test ! -e ${'$'}{REAL_HOME}/secret && test -f src/add.js && ! touch src/new 2>/dev/null"]
    env: ["REAL_HOME"]
    sources: ["src/**"]
`,
      { 'notes.txt': 'not declared\n' },
    );
    writeFileSync(join(rig.home, 'secret'), 'x');
    const ran = await rig.run(['verify', '--json'], { env: { REAL_HOME: rig.home } });
    expect(
      ran.json().checks.map((c: any) => `${c.id}:${c.status}:${c.reason}`),
      ran.stdout,
    ).toEqual(['tests:PASS:ok', 'looks:PASS:ok']);
    const shown = await receipt(rig, 'tests');
    expect(shown.receipt.sandbox).toEqual({
      kind: 'bubblewrap',
      network: false,
      writable: 'artifact folders',
      view: { files: 2, bytes: ADD_GOOD.length + ADD_TEST.length, writable: [], home: 'empty' },
    });
    expect((await rig.run(['show', 'tests'])).stdout).toMatch(/^sandbox +bubblewrap · only 2 declared files \(1 KiB\), empty HOME · network off$/m);
    // The copy (in the shared-memory tmpfs, hermetic/place.ts) is gone once the run ends.
    expect(readdirSync('/dev/shm').filter((name) => name.startsWith('vouch-hermetic-'))).toEqual([]);
  });

  it('a check that is not hermetic still sees the workspace (hermetic is off by default, and a check may say false under a hermetic spec)', async () => {
    const rig = await project(
      `version: 1
hermetic: true
checks:
  - {id: open, run: ["sh", "-c", "test -e notes.txt"], sources: ["src/**"], hermetic: false}
`,
      { 'notes.txt': 'x' },
    );
    const { one } = await verify(rig);
    expect(one).toMatchObject({ status: 'PASS' });
    expect((await receipt(rig, 'open')).receipt.sandbox).toBeUndefined();
  });

  it('attack: a node_modules/.bin/node shim under npm test passes broken code in the workspace; hermetic, the shim is not there and the test FAILs', async () => {
    const spec = (hermetic: boolean) => `version: 1
checks:
  - id: tests
    run: ["npm", "test"]
    hermetic: ${hermetic}
    inputs: ["package.json"]
    sources: ["src/**"]
    tests: ["test/**"]
`;
    const files = { 'src/add.js': ADD_BROKEN, 'package.json': JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'node test/add.test.js' } }) };
    for (const hermetic of [false, true]) {
      const rig = await project(spec(hermetic), files);
      rig.script('node_modules/.bin/node', 'exit 0');
      const { one } = await verify(rig);
      // Not hermetic: npm puts node_modules/.bin first on PATH, and the shim "passes". Hermetic: the real node runs the test.
      expect(one, `hermetic: ${hermetic}`).toMatchObject(hermetic ? { status: 'FAIL', reason: 'exit_code' } : { status: 'PASS' });
    }
  });

  it('npm test works with its package.json and a declared node_modules; a dependency that is not declared makes it FAIL, never PASS on the workspace copy', async () => {
    const rig = await project(
      `version: 1
hermetic: true
checks:
  - id: declared
    run: ["npm", "test"]
    inputs: ["package.json", "node_modules/**"]
    sources: ["src/**"]
    tests: ["test/**"]
  - id: undeclared
    run: ["npm", "test"]
    inputs: ["package.json"]
    sources: ["src/**"]
    tests: ["test/**"]
`,
      {
        'src/add.js': "const pad = require('leftpad');\nmodule.exports = (a, b) => a + b + pad('').length;\n",
        'node_modules/leftpad/package.json': '{"name": "leftpad", "main": "index.js"}',
        'node_modules/leftpad/index.js': 'module.exports = (s) => s;\n',
        'package.json': JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'node test/add.test.js' } }),
      },
    );
    const { checks } = await verify(rig);
    expect(checks.map((c) => `${c.id}:${c.status}`)).toEqual(['declared:PASS', 'undeclared:FAIL']);
  });

  it('a declared symlink is copied as one when its target is copied too (node_modules/.bin finds its package); a link out of the workspace never runs', async () => {
    const rig = new Rig().write({
      'src/add.js': ADD_GOOD,
      'node_modules/tool/cli.js': "#!/usr/bin/env node\nrequire('./lib.js');\n",
      'node_modules/tool/lib.js': "console.log('lib found');\n",
    });
    chmodSync(rig.path('node_modules/tool/cli.js'), 0o755);
    mkdirSync(rig.path('node_modules/.bin'));
    symlinkSync('../tool/cli.js', rig.path('node_modules/.bin/tool'));
    // Allowed once the program exists: allow pins what it resolves to.
    await rig.spec(`version: 1
hermetic: true
checks:
  - id: bin
    run: ["node_modules/.bin/tool"]
    inputs: ["node_modules/**"]
    sources: ["src/**"]
`);
    const { one } = await verify(rig);
    expect(one).toMatchObject({ status: 'PASS' });
    symlinkSync('/etc/hostname', rig.path('node_modules/outside'));
    expect((await verify(rig)).one).toMatchObject({ status: 'UNKNOWN', reason: 'path_escape' });
  });

  it('attack: a background process swaps a good add.js in while the check runs and puts the broken one back; the hermetic check reads the bytes that were fingerprinted', async () => {
    const rig = await project(
      `version: 1
checks:
  - id: tests
    run: ["node", "test/wait.test.js", "vouch-swap-marker"]
    hermetic: true
    sources: ["src/**"]
    tests: ["test/**"]
`,
      {
        'src/add.js': ADD_BROKEN,
        // Reads add.js only once the swapper has swapped it (SIGUSR2): no timing margin.
        'test/wait.test.js': `process.on('SIGUSR2', () => {
  const got = require('../src/add.js')(1, 2);
  if (got !== 3) { console.error('add(1, 2) returned ' + got); process.exit(1); }
  console.log('ok'); process.exit(0);
});
setTimeout(() => { console.error('never signalled'); process.exit(2); }, 45000);
`,
      },
    );
    const swapper = Swapper.start(rig.root, 'vouch-swap-marker', 'src/add.js', ADD_GOOD);
    swappers.push(swapper);
    const { one } = await verify(rig);
    expect(await swapper.done()).toMatch(/swapped src\/add\.js\nrestored/);
    // Never a PASS: the run read the broken bytes it fingerprinted (and the workspace changed under it).
    expect(one.status).not.toBe('PASS');
    const shown = await receipt(rig, one.receipt!);
    expect(shown.receipt.exit_code).toBe(1);
    expect(shown.receipt.stderr.excerpt).toContain('add(1, 2) returned -1');
  });

  it('attack: a process outside the sandbox rewrites the private copy itself during the run and restores it: UNKNOWN changed_during_run, never PASS', async () => {
    const rig = await project(
      `version: 1
checks:
  - id: tests
    run: ["node", "test/wait.test.js", "vouch-copy-marker"]
    hermetic: true
    sources: ["src/**"]
    tests: ["test/**"]
`,
      {
        'src/add.js': ADD_BROKEN,
        'test/wait.test.js': `process.on('SIGUSR2', () => {
  delete require.cache[require.resolve('../src/add.js')];
  const got = require('../src/add.js')(1, 2);
  if (got !== 3) { console.error('add(1, 2) returned ' + got); process.exit(1); }
  console.log('ok'); process.exit(0);
});
setTimeout(() => { console.error('never signalled'); process.exit(2); }, 45000);
`,
      },
    );
    const swapper = Swapper.start(rig.root, 'vouch-copy-marker', '/dev/shm/vouch-hermetic-*/root/src/add.js', ADD_GOOD);
    swappers.push(swapper);
    const { one } = await verify(rig);
    expect(await swapper.done()).toMatch(/swapped \/dev\/shm\/vouch-hermetic-\w+\/root\/src\/add\.js/);
    expect(one).toMatchObject({ status: 'UNKNOWN', reason: 'changed_during_run' });
    expect(one.detail).toContain("private copy's src/add.js");
    // The check did read the swapped bytes: without the identity check this would be a PASS.
    expect((await receipt(rig, one.receipt!)).receipt.exit_code).toBe(0);
  });

  it('attack: a .pth in the user site (under HOME) makes python exit 0 before any test; hermetic, HOME is empty and the test FAILs (PYTHONNOUSERSITE closes it too)', async () => {
    const rig = await project(
      `version: 1
checks:
  - id: tests
    run: ["/usr/bin/python3", "test_calc.py"]
    hermetic: true
    sources: ["calc.py"]
    tests: ["test_calc.py"]
`,
      { 'calc.py': 'def add(a, b):\n    return a - b\n', 'test_calc.py': 'import sys\nfrom calc import add\nsys.exit(0 if add(1, 2) == 3 else 1)\n' },
    );
    const site = spawnSync('/usr/bin/python3', ['-c', 'import site; print(site.getusersitepackages())'], {
      env: { HOME: rig.home },
      encoding: 'utf8',
    }).stdout.trim();
    mkdirSync(site, { recursive: true });
    writeFileSync(join(site, 'vouch-attack.pth'), 'import os; os._exit(0)\n');
    expect(spawnSync('/usr/bin/python3', ['test_calc.py'], { cwd: rig.root, env: { HOME: rig.home } }).status, 'the attack works outside').toBe(0);
    expect((await verify(rig)).one).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
  });

  it('attack: a module in ~/.node_modules (Node looks there when a require finds nothing) passes a test whose helper is missing; hermetic, HOME is empty and it FAILs', async () => {
    const spec = (hermetic: boolean) => `version: 1
checks:
  - id: tests
    run: ["node", "test/helper.test.js"]
    hermetic: ${hermetic}
    sources: ["src/**"]
    tests: ["test/**"]
`;
    for (const hermetic of [false, true]) {
      // The test needs a helper the project does not have: it can only pass with one from outside the proof.
      const rig = await project(spec(hermetic), { 'test/helper.test.js': "const ok = require('vouch-helper');\nprocess.exit(ok() ? 0 : 1);\n" });
      rig.write({ '../home/.node_modules/vouch-helper/index.js': 'module.exports = () => true;\n' });
      const { one } = await verify(rig);
      expect(one, `hermetic: ${hermetic}`).toMatchObject(hermetic ? { status: 'FAIL', reason: 'exit_code' } : { status: 'PASS' });
    }
  });

  it('attack: a sourceless calc.pyc at the workspace root shadows the declared, broken src/calc.py; hermetic, it is not there and the test FAILs (PYTHONSAFEPATH closes it too)', async () => {
    const rig = await project(
      `version: 1
checks:
  - id: tests
    run: ["/usr/bin/python3", "-m", "unittest", "discover", "-s", "tests", "-t", "."]
    hermetic: true
    sources: ["src/**"]
    tests: ["tests/**"]
`,
      {
        'src/calc.py': 'def add(a, b):\n    return a - b\n',
        'tests/__init__.py': '',
        'tests/test_calc.py':
          "import sys, unittest\nsys.path.append('src')\nfrom calc import add\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(1, 2), 3)\n",
        'good/calc.py': 'def add(a, b):\n    return a + b\n',
      },
    );
    // Compiled from good code, left at the root without its source: on sys.path before src/.
    spawnSync('/usr/bin/python3', ['-c', "import py_compile; py_compile.compile('good/calc.py', cfile='calc.pyc')"], { cwd: rig.root });
    expect(existsSync(rig.path('calc.pyc'))).toBe(true);
    expect((await verify(rig)).one).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
  });

  // Needs /usr/bin/python3 with pytest (python3-pytest); .ci/run installs it, so in CI this always runs.
  it.skipIf(!PYTEST && !CI)('python3 -m pytest with declared tests, pyproject.toml and conftest.py passes; an undeclared conftest.py is not read', async () => {
    const rig = await project(
      `version: 1
hermetic: true
checks:
  - id: pytest
    run: ["/usr/bin/python3", "-m", "pytest", "-q"]
    inputs: ["pyproject.toml", "conftest.py"]
    sources: ["src/**"]
    tests: ["tests/**"]
  - id: pytest-no-conftest
    run: ["/usr/bin/python3", "-m", "pytest", "-q"]
    inputs: ["pyproject.toml"]
    sources: ["src/**"]
    tests: ["tests/**"]
`,
      {
        'pyproject.toml': '[tool.pytest.ini_options]\npythonpath = ["src"]\ntestpaths = ["tests"]\n',
        'conftest.py': 'import pytest\n\n@pytest.fixture\ndef three():\n    return 3\n',
        'src/calc.py': 'def add(a, b):\n    return a + b\n',
        'tests/test_calc.py': 'from calc import add\n\ndef test_add(three):\n    assert add(1, 2) == three\n',
      },
    );
    const { checks } = await verify(rig);
    // Without the conftest.py its fixture is missing: the test errors, so the check FAILs.
    expect(checks.map((c) => `${c.id}:${c.status}`)).toEqual(['pytest:PASS', 'pytest-no-conftest:FAIL']);
  });

  it('make test runs with its Makefile declared as an input', async () => {
    const rig = await project(
      `version: 1
hermetic: true
checks:
  - id: make
    run: ["make", "test"]
    inputs: ["Makefile"]
    sources: ["src/**"]
    tests: ["test/**"]
`,
      { Makefile: 'test:\n\tnode test/add.test.js\n' },
    );
    expect((await verify(rig)).one).toMatchObject({ status: 'PASS' });
  });

  it('artifacts: their folders are writable and what the run made comes back to the workspace, hashed; an old file it did not make is artifact_missing', async () => {
    const rig = await project(
      `version: 1
hermetic: true
checks:
  - id: build
    run: ["sh", "-c", "mkdir -p dist && cp src/add.js dist/add.js && echo built > dist/stamp"]
    sources: ["src/**"]
    artifacts: ["dist/**"]
  - id: stale
    run: ["true"]
    sources: ["src/**"]
    artifacts: ["out/old.txt"]
`,
      { 'out/old.txt': 'from an earlier run\n' },
    );
    const { checks } = await verify(rig);
    expect(checks.map((c) => `${c.id}:${c.status}:${c.reason}`)).toEqual(['build:PASS:ok', 'stale:UNKNOWN:artifact_missing']);
    expect(rig.read('dist/add.js')).toBe(ADD_GOOD);
    expect(rig.read('dist/stamp')).toBe('built\n');
    const shown = await receipt(rig, 'build');
    expect(shown.manifest.files.filter((f: any) => f[3] === 'artifact').map((f: any) => f[0])).toEqual(['dist/add.js', 'dist/stamp']);
    expect(shown.receipt.sandbox.view.writable).toEqual(['dist']);
  });

  it('attack: an artifact folder that is a symlink out of the workspace is never written through (path_escape)', async () => {
    const rig = await project(`version: 1
checks:
  - id: build
    run: ["sh", "-c", "mkdir -p dist && echo x > dist/out.txt"]
    hermetic: true
    sources: ["src/**"]
    artifacts: ["dist/out.txt"]
`);
    const outside = join(rig.home, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, rig.path('dist'));
    const { one } = await verify(rig);
    expect(one).toMatchObject({ status: 'UNKNOWN', reason: 'path_escape' });
    expect(readdirSync(outside)).toEqual([]);
  });

  it('the network is off by default (loopback of its own); network: true keeps it', async () => {
    const server = createServer((socket) => socket.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const connect = `require('net').connect(${port}, '127.0.0.1').on('data', () => process.exit(0)).on('error', (e) => { console.error(e.code); process.exit(1); })`;
      const rig = await project(`version: 1
hermetic: true
checks:
  - {id: offline, run: ["node", "-e", "${connect.replace(/"/g, '\\"')}"], sources: ["src/**"]}
  - {id: online, run: ["node", "-e", "${connect.replace(/"/g, '\\"')}"], sources: ["src/**"], network: true}
`);
      const { checks } = await verify(rig);
      expect(checks.map((c) => `${c.id}:${c.status}`)).toEqual(['offline:FAIL', 'online:PASS']);
      expect((await receipt(rig, 'online')).receipt.sandbox.network).toBe(true);
    } finally {
      server.close();
    }
  });

  it('network: true on a check that is not hermetic is a spec error, located', async () => {
    const rig = new Rig().write({ 'src/a.js': 'x', 'vouch.yaml': 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"], network: true}\n' });
    const result = await rig.run(['checks']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('vouch.yaml:3:');
    expect(result.stderr).toMatch(/network: true has no effect on check "t", which is not hermetic/);
  });

  it('hermetic and network are part of the definition digest: turning hermetic on makes an old PASS STALE', async () => {
    const rig = await project('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    const plain = (await rig.run(['checks', '--json'])).json().checks[0].definition_digest;
    await verify(rig);
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"], hermetic: true}\n');
    const hermetic = (await rig.run(['checks', '--json'])).json().checks[0];
    expect(hermetic).toMatchObject({ hermetic: true, network: false });
    expect(hermetic.definition_digest).not.toBe(plain);
    expect((await rig.run(['status', '--json'])).json().checks[0]).toMatchObject({ status: 'STALE', reason: 'definition_changed' });
  });

  it('where bubblewrap is missing or cannot start, a hermetic check is UNKNOWN sandbox_unavailable and never runs unconfined', async () => {
    const rig = await project('version: 1\nchecks:\n  - {id: t, run: ["sh", "-c", "touch ran"], sources: ["src/**"], artifacts: ["ran"], hermetic: true}\n');
    const env = rig.env();
    // vouch itself run in an outer sandbox: /usr/bin/bwrap replaced by an empty file; then one that forbids new namespaces.
    const outer = [
      ['--ro-bind', '/dev/null', '/usr/bin/bwrap'],
      ['--unshare-user', '--disable-userns'],
    ];
    for (const extra of outer) {
      const ran = spawnSync(
        '/usr/bin/bwrap',
        [...extra, '--bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--', process.execPath, CLI, 'verify', '--json'],
        { cwd: rig.root, env, encoding: 'utf8' },
      );
      const check = JSON.parse(ran.stdout).checks[0];
      expect(check, ran.stderr).toMatchObject({ status: 'UNKNOWN', reason: 'sandbox_unavailable' });
      expect(check.detail).toMatch(/apt-get install bubblewrap/);
      expect(existsSync(rig.path('ran'))).toBe(false);
      const shown = JSON.parse(spawnSync(process.execPath, [CLI, 'show', check.receipt, '--json'], { cwd: rig.root, env, encoding: 'utf8' }).stdout);
      expect(shown.receipt).toMatchObject({ ran: false, exit_code: null });
      expect(shown.receipt.sandbox).toBeUndefined();
    }
  });

  it('the private copy is taken from the bytes that were fingerprinted: a file replaced after it was hashed stops the run (changed_during_hash)', async () => {
    // Unit-level through the real modules: the copy is asked for a digest the file no longer has.
    const { makePrivateCopy } = await import('../src/hermetic/copy.js');
    const rig = new Rig().write({ 'src/a.txt': 'now\n' });
    const made = makePrivateCopy(rig.root, [['src/a.txt', '0'.repeat(64) as never, 4, 'source']], join(rig.home, 'copy'), []);
    expect(made).toMatchObject({ ok: false, error: { reason: 'changed_during_hash', path: 'src/a.txt' } });
    expect(readFileSync(rig.path('src/a.txt'), 'utf8')).toBe('now\n');
  });
});
