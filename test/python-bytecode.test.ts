import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * Python runs a module from its __pycache__/*.pyc while the source's mtime
 * (whole seconds) and size match what the .pyc recorded. A same-size edit
 * made within the second, or one whose old mtime was put back, is run from
 * the old bytecode: a check would PASS on code that is not there. vouch
 * gives every run a fresh PYTHONPYCACHEPREFIX (src/runner/pycache.ts), so
 * Python compiles the sources vouch fingerprinted and never reads a .pyc
 * from the tree. Driven with the real python3.
 */

const PYTHON = '/usr/bin/python3';
const GOOD = 'def add(a, b):\n    return a + b\n';
const BROKEN = 'def add(a, b):\n    return a - b\n';
const TEST = 'import unittest\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n';
// The run writes where Python was told to keep its bytecode, outside the workspace, so the test can look at it afterwards.
const SPEC = `version: 1
checks:
  - id: unit
    run: ["sh", "-c", "printf %s \\"$PYTHONPYCACHEPREFIX\\" > ../pycache-prefix.txt; exec ${PYTHON} -m unittest -q"]
    sources: ["calc.py"]
    tests: ["test_calc.py"]
`;

async function verify(rig: Rig): Promise<{ status: string; reason: string; receipt: string }> {
  const result = await rig.run(['verify', '--json']);
  return result.json<{ checks: { status: string; reason: string; receipt: string }[] }>().checks[0]!;
}

describe('Python bytecode left in the tree', () => {
  it('a stale .pyc planted for a same-size edit with its old mtime put back is not run: the broken code FAILs', async () => {
    const rig = new Rig().write({ 'calc.py': GOOD, 'test_calc.py': TEST });
    await rig.spec(SPEC);
    // The agent compiles the good module into the tree's __pycache__ ...
    expect(spawnSync(PYTHON, ['-m', 'py_compile', 'calc.py'], { cwd: rig.root }).status).toBe(0);
    expect(existsSync(rig.path('__pycache__'))).toBe(true);
    // ... breaks it without changing its size, and gives it its old mtime back: Python alone would run the good bytecode.
    const before = statSync(rig.path('calc.py'));
    rig.write({ 'calc.py': BROKEN });
    utimesSync(rig.path('calc.py'), before.atime, before.mtime);
    expect(spawnSync(PYTHON, ['-m', 'unittest', '-q'], { cwd: rig.root }).status).toBe(0);
    // Through vouch the sources are compiled afresh: the broken add fails its test.
    expect(await verify(rig)).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
  });

  it('a run leaves no __pycache__ in the tree, its bytecode directory is removed, and the receipt names the variable', async () => {
    const rig = new Rig().write({ 'calc.py': GOOD, 'test_calc.py': TEST });
    await rig.spec(SPEC);
    const first = await verify(rig);
    expect(first).toMatchObject({ status: 'PASS' });
    expect(existsSync(rig.path('__pycache__'))).toBe(false);
    const prefix = readFileSync(rig.path('../pycache-prefix.txt'), 'utf8');
    expect(prefix).toMatch(/vouch-pycache-/);
    expect(existsSync(prefix)).toBe(false);
    const shown = (await rig.run(['show', first.receipt, '--json'])).json<{ receipt: { env_names: string[] } }>();
    expect(shown.receipt.env_names).toContain('PYTHONPYCACHEPREFIX');
    // A same-size edit right after the run (within its second) is seen: nothing was cached to fool Python.
    rig.write({ 'calc.py': BROKEN });
    expect(await verify(rig)).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
  });

  it('a check that lists PYTHONPYCACHEPREFIX in env: gets the person’s value, not vouch’s', async () => {
    const rig = new Rig().write({ 'calc.py': GOOD, 'test_calc.py': TEST });
    await rig.spec(SPEC.replace('    tests: ["test_calc.py"]\n', '    tests: ["test_calc.py"]\n    env: ["PYTHONPYCACHEPREFIX"]\n'));
    const result = await rig.run(['verify'], { env: { PYTHONPYCACHEPREFIX: rig.path('../my-pycache') } });
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(rig.path('../pycache-prefix.txt'), 'utf8')).toBe(rig.path('../my-pycache'));
  });
});
