import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * What a new user's first `vouch init --write` proposes, on real small
 * projects: the test folders protected (with the comment saying why),
 * a composite `npm test` split into one check per part, test files classed
 * as tests, a virtualenv's python used; and `vouch verify` runs what init
 * wrote with no hand edit where the tools are installed here.
 */

// Debian's python3 (with python3-pytest) is /usr/bin/python3; another python3 comes first on this machine's PATH.
const DEBIAN_FIRST = { PATH: `/usr/bin:/bin:${process.env.PATH ?? ''}` };

interface CheckJson {
  id: string;
  run: string[];
  inputs: string[];
  files: { path: string; group: string }[];
}

async function init(rig: Rig, env: Record<string, string> = {}): Promise<{ yaml: string; checks: CheckJson[] }> {
  const written = await rig.run(['init', '--write'], { env });
  expect(written.code, written.stderr).toBe(0);
  const listed = await rig.run(['checks', '--files', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  return { yaml: rig.read('vouch.yaml'), checks: listed.json<{ checks: CheckJson[] }>().checks };
}

async function allowAndVerify(rig: Rig, env: Record<string, string> = {}): Promise<{ id: string; status: string; reason: string }[]> {
  const allowed = await rig.run(['allow'], { env });
  expect(allowed.code, allowed.stderr).toBe(0);
  return (await rig.run(['verify', '--json'], { env })).json<{ checks: { id: string; status: string; reason: string }[] }>().checks;
}

const groupOf = (check: CheckJson | undefined, path: string) => check?.files.find((f) => f.path === path)?.group;

describe('vouch init, the first week', { timeout: 300_000 }, () => {
  it('a slugify-shaped package (`xo && ava && tsd`): one check per part, each with its own tool configs as inputs; test.js and index.test-d.ts are tests, and protected by name', async () => {
    const rig = new Rig().write({
      'package.json': JSON.stringify(
        { name: 'slugify', type: 'module', scripts: { test: 'xo && ava && tsd' }, devDependencies: { ava: '^6', tsd: '^0.31', xo: '^0.58' } },
        null,
        2,
      ),
      'index.js': 'export default function slugify(text) {\n\treturn text.toLowerCase().replace(/\\s+/g, "-");\n}\n',
      'index.d.ts': 'export default function slugify(text: string): string;\n',
      'index.test-d.ts': "import {expectType} from 'tsd';\nimport slugify from './index.js';\nexpectType<string>(slugify('a'));\n",
      'test.js': "import test from 'ava';\nimport slugify from './index.js';\ntest('main', t => {\n\tt.is(slugify('A b'), 'a-b');\n});\n",
      'overridable-replacements.js': 'export default [];\n',
    });
    const { yaml, checks } = await init(rig);
    expect(checks.map((c) => [c.id, c.run.join(' ')])).toEqual([
      ['tests-xo', 'npx --no-install xo'],
      ['tests-ava', 'npx --no-install ava'],
      ['tests-tsd', 'npx --no-install tsd'],
    ]);
    const [xo, ava, tsd] = checks;
    expect(xo!.inputs).toEqual(expect.arrayContaining(['package.json', '.xo-config', 'xo.config.*']));
    expect(xo!.inputs).not.toContain('ava.config.*');
    expect(ava!.inputs).toEqual(expect.arrayContaining(['package.json', 'ava.config.*']));
    expect(ava!.inputs).not.toContain('.xo-config');
    expect(tsd!.inputs).toContain('tsconfig*.json');
    for (const check of checks) {
      expect(groupOf(check, 'test.js'), check.id).toBe('test');
      expect(groupOf(check, 'index.test-d.ts'), check.id).toBe('test');
      expect(groupOf(check, 'index.js'), check.id).toBe('source');
    }
    expect(yaml).toContain('protect: ["test.js"]');
    expect(yaml).toMatch(/# protect: the agent may not write the tests that judge it/);
  });

  it('a composite script with node --test runs as written: verify passes on the split checks with no hand edit', async () => {
    const rig = new Rig().write({
      'package.json': JSON.stringify({ name: 'p', type: 'module', scripts: { test: 'node --test test/ && node test/smoke.js' } }),
      'index.js': 'export const add = (a, b) => a + b;\n',
      'test/add.test.js':
        "import test from 'node:test';\nimport assert from 'node:assert';\nimport { add } from '../index.js';\ntest('add', () => assert.equal(add(2, 3), 5));\n",
      'test/smoke.js': "import { add } from '../index.js';\nif (add(1, 1) !== 2) process.exit(1);\n",
    });
    const { yaml, checks } = await init(rig);
    expect(checks.map((c) => c.id)).toEqual(['tests-node', 'tests-node-2']);
    expect(yaml).toContain('protect: ["test/**"]');
    expect((await allowAndVerify(rig)).map((c) => [c.id, c.status])).toEqual([
      ['tests-node', 'PASS'],
      ['tests-node-2', 'PASS'],
    ]);
  });

  it('a pytest project: tests/ protected; verify passes with no hand edit; the agent writing tests/conftest.py is denied', async () => {
    const rig = new Rig().write({
      'pyproject.toml': '[project]\nname = "signer"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\npythonpath = ["."]\n',
      'signer.py': 'def sign(value):\n    return value + ".sig"\n',
      'tests/test_signer.py': 'from signer import sign\n\n\ndef test_sign():\n    assert sign("a") == "a.sig"\n',
    });
    const { yaml } = await init(rig, DEBIAN_FIRST);
    expect(yaml).toContain('protect: ["tests/**"]');
    expect((await allowAndVerify(rig, DEBIAN_FIRST)).map((c) => [c.id, c.status])).toEqual([['tests', 'PASS']]);
    const stdin = JSON.stringify({
      session_id: 'sess-init',
      cwd: rig.root,
      transcript_path: '/dev/null',
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { file_path: rig.path('tests/conftest.py'), content: 'import pytest\n' },
      tool_use_id: 't1',
    });
    const answer = JSON.parse((await rig.run(['hook', 'claude-code', 'PreToolUse'], { stdin })).stdout) as {
      hookSpecificOutput: { permissionDecision: string };
    };
    expect(answer.hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('a virtualenv at .venv: init proposes .venv/bin/python (its pyvenv.cfg an input), and verify runs it with no hand edit', async () => {
    const rig = new Rig().write({
      'signer.py': 'def sign(value):\n    return value + ".sig"\n',
      'pytest.ini': '[pytest]\npythonpath = .\n',
      'tests/test_signer.py': 'from signer import sign\n\n\ndef test_sign():\n    assert sign("a") == "a.sig"\n',
    });
    // A venv that sees the system's pytest (python3-pytest): no download.
    execFileSync('/usr/bin/python3', ['-m', 'venv', '--system-site-packages', '--without-pip', rig.path('.venv')]);
    const { checks } = await init(rig, DEBIAN_FIRST);
    expect(checks[0]).toMatchObject({ id: 'tests', run: ['.venv/bin/python', '-m', 'pytest', '-q'] });
    expect(checks[0]!.inputs).toContain('.venv/pyvenv.cfg');
    // Allowed from a shell with no venv active and another python3 first: the check still runs the venv's.
    expect((await allowAndVerify(rig)).map((c) => [c.id, c.status])).toEqual([['tests', 'PASS']]);
  });

  it('a parson-shaped Makefile project: tests.c is a test (and protected), the binary make writes is not in scope; verify passes with no hand edit', async () => {
    const rig = new Rig().write({
      Makefile: 'CC ?= cc\n\ntest: tests.c parson.c\n\t$(CC) -o tests tests.c parson.c\n\t./tests\n\nclean:\n\trm -f tests\n',
      'parson.c': '#include "parson.h"\nint json_add(int a, int b) { return a + b; }\n',
      'parson.h': 'int json_add(int a, int b);\n',
      'tests.c': '#include "parson.h"\nint main(void) { return json_add(2, 3) == 5 ? 0 : 1; }\n',
    });
    const { yaml, checks } = await init(rig);
    expect(checks.map((c) => c.id)).toEqual(['make-test']);
    expect(groupOf(checks[0], 'tests.c')).toBe('test');
    expect(groupOf(checks[0], 'parson.c')).toBe('source');
    expect(yaml).toContain('protect: ["tests.c"]');
    expect((await allowAndVerify(rig)).map((c) => [c.id, c.status])).toEqual([['make-test', 'PASS']]);
  });
});
