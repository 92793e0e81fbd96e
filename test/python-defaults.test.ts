import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig, type RunResult } from './helpers/rig.js';

/*
 * Python reads code from outside a check's proof at every start: the user's
 * site-packages (a `.pth` line there runs before anything else) and the
 * working directory at the front of sys.path (`python3 -m pytest` imports a
 * `pytest.pyc` left there before the real pytest). Every check runs with
 * PYTHONNOUSERSITE=1 and PYTHONSAFEPATH=1 (src/runner/env.ts): both attacks
 * FAIL, with the real python3 and pytest.
 */

const PYTHON = '/usr/bin/python3';
const SESSION = 'sess-python';
const BROKEN = { 'calc.py': 'def add(a, b):\n    return a - b\n', 'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n' };
const SPEC = `version: 1\nchecks:\n  - {id: tests, run: ["${PYTHON}", "-m", "pytest", "-q", "-p", "no:cacheprovider"], sources: ["**/*.py"]}\n`;

async function verify(rig: Rig): Promise<{ status: string; reason: string }> {
  return (await rig.run(['verify', '--json'])).json<{ checks: { status: string; reason: string }[] }>().checks[0]!;
}

function hook(rig: Rig, event: string, payload: Record<string, unknown>): Promise<RunResult> {
  const stdin = JSON.stringify({ session_id: SESSION, cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload });
  return rig.run(['hook', 'claude-code', event], { stdin });
}

describe('Python runs only what the proof holds', () => {
  it('attack: a .pth in the user site-packages that calls os._exit(0) when VOUCH_CHECK_ID is set: the broken code FAILs, and the Stop is held', async () => {
    const rig = new Rig().write(BROKEN);
    await rig.spec(SPEC);
    const site = execFileSync(PYTHON, ['-c', 'import site; print(site.getusersitepackages())'], {
      env: { HOME: rig.home, PATH: process.env.PATH },
      encoding: 'utf8',
    }).trim();
    expect(site.startsWith(rig.home)).toBe(true);
    await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'python3 setup.py' }, tool_use_id: 't1' });
    mkdirSync(site, { recursive: true });
    writeFileSync(join(site, 'zz.pth'), "import os; os.environ.get('VOUCH_CHECK_ID') and os._exit(0)\n");
    // The attack works on a plain run with the check's marker set: Python alone exits 0 before pytest starts.
    expect(() =>
      execFileSync(PYTHON, ['-m', 'pytest', '-q'], {
        cwd: rig.root,
        env: { HOME: rig.home, PATH: process.env.PATH, VOUCH_CHECK_ID: 'tests' },
        stdio: 'ignore',
      }),
    ).not.toThrow();
    expect(await verify(rig)).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
    const result = await hook(rig, 'Stop', { stop_hook_active: false });
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: 'block' });
    expect(JSON.parse(result.stdout).reason).toContain('tests: FAIL (exit_code)');
  });

  it('attack: a sourceless pytest.pyc at the workspace root (`**/*.py` does not match it; `python3 -m pytest` would import it first): the broken code FAILs', async () => {
    const rig = new Rig().write(BROKEN);
    await rig.spec(SPEC);
    rig.write({ 'pytest.py': 'import sys\nsys.exit(0)\n' });
    execFileSync(PYTHON, ['-c', "import py_compile; py_compile.compile('pytest.py', cfile='pytest.pyc')"], { cwd: rig.root });
    rmSync(rig.path('pytest.py'));
    expect(() => execFileSync(PYTHON, ['-m', 'pytest', '-q'], { cwd: rig.root, stdio: 'ignore' })).not.toThrow();
    expect(await verify(rig)).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
  });

  it("a check that lists PYTHONNOUSERSITE in env: gets the caller's value (the person's choice), and its receipt names the defaults it got", async () => {
    const rig = new Rig().write({ ...BROKEN, 'calc.py': 'def add(a, b):\n    return a + b\n' });
    await rig.spec(
      `version: 1\nchecks:\n  - {id: tests, run: ["sh", "-c", "echo nousersite=$PYTHONNOUSERSITE safepath=$PYTHONSAFEPATH"], sources: ["**/*.py"], env: ["PYTHONNOUSERSITE"]}\n`,
    );
    const ran = await rig.run(['verify', '--json'], { env: { PYTHONNOUSERSITE: '', PYTHONSAFEPATH: '' } });
    const receipt = (await rig.run(['show', ran.json().checks[0].receipt, '--json'])).json().receipt;
    expect(receipt.stdout.excerpt).toContain('nousersite= safepath=1');
    expect(receipt.env_names).toContain('PYTHONSAFEPATH');
  });
});
