import { describe, expect, it } from 'vitest';
import { Rig, type RunResult } from './helpers/rig.js';

/*
 * A vacuous PASS is not a PASS: the test runner's own summary is read into
 * the receipt (tests: {runner, ran, passed, failed, skipped}); a blocking
 * check that ran no test, or skipped more than at its recent passes, is
 * UNKNOWN, and the gate's Stop block says so. Real python3 -m pytest.
 */

const PYTHON = '/usr/bin/python3';
const SESSION = 'sess-vacuous';
const CODE = {
  'signer.py': 'def sign(value):\n    return value + ".sig"\n',
  // Checks run with PYTHONSAFEPATH=1: the workspace is on sys.path through pytest's own setting.
  'pytest.ini': '[pytest]\npythonpath = .\n',
  'tests/test_signer.py':
    'from signer import sign\n\n\ndef test_sign():\n    assert sign("a") == "a.sig"\n\n\ndef test_other():\n    assert sign("b") == "b.sig"\n\n\ndef test_third():\n    assert sign("") == ".sig"\n',
};
const PYTEST = `["${PYTHON}", "-m", "pytest", "-p", "no:cacheprovider", "tests"]`;
const spec = (extra = '') => `version: 1\nchecks:\n  - {id: tests, run: ${PYTEST}, sources: ["*.py"], tests: ["tests/**"]${extra}}\n`;
const SKIP_ALL =
  'import pytest\n\n\ndef pytest_collection_modifyitems(items):\n    for item in items:\n        item.add_marker(pytest.mark.skip(reason="later"))\n';
const SKIP_ONE = 'import pytest\n\n\ndef pytest_collection_modifyitems(items):\n    items[0].add_marker(pytest.mark.skip(reason="later"))\n';

interface Entry {
  status: string;
  reason: string;
  detail: string | null;
  receipt: string;
}

async function verify(rig: Rig): Promise<Entry> {
  return (await rig.run(['verify', '--json'])).json<{ checks: Entry[] }>().checks[0]!;
}

async function shown(rig: Rig, receipt: string): Promise<Record<string, unknown>> {
  return (await rig.run(['show', receipt, '--json'])).json<{ receipt: Record<string, unknown> }>().receipt;
}

function hook(rig: Rig, event: string, payload: Record<string, unknown>): Promise<RunResult> {
  const stdin = JSON.stringify({ session_id: SESSION, cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload });
  return rig.run(['hook', 'claude-code', event], { stdin });
}

describe('a vacuous PASS is not a PASS', () => {
  it("a PASS records the runner's counts, and `vouch show` prints them", async () => {
    const rig = new Rig().write(CODE);
    await rig.spec(spec());
    const entry = await verify(rig);
    expect(entry).toMatchObject({ status: 'PASS', reason: 'ok' });
    expect((await shown(rig, entry.receipt)).tests).toEqual({ runner: 'pytest', ran: 3, passed: 3, failed: 0, skipped: 0 });
    const text = await rig.run(['show', entry.receipt]);
    expect(text.stdout).toMatch(/tests\s+pytest: 3 ran · 3 passed · 0 failed · 0 skipped/);
  });

  it('attack: the code broken and a conftest.py that skips every test (pytest exits 0, "3 skipped"): UNKNOWN no_tests_ran, and the Stop is held saying so', async () => {
    const rig = new Rig().write(CODE);
    await rig.spec(spec());
    expect(await verify(rig)).toMatchObject({ status: 'PASS' });
    await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'true' }, tool_use_id: 't1' });
    rig.write({ 'signer.py': 'def sign(value):\n    return value\n', 'tests/conftest.py': SKIP_ALL });
    const entry = await verify(rig);
    expect(entry).toMatchObject({ status: 'UNKNOWN', reason: 'no_tests_ran' });
    expect(entry.detail).toContain('pytest: 0 ran (0 passed, 0 failed), 3 skipped');
    const stop = JSON.parse((await hook(rig, 'Stop', { stop_hook_active: false })).stdout) as { decision: string; reason: string };
    expect(stop.decision).toBe('block');
    expect(stop.reason).toContain('tests: UNKNOWN (no_tests_ran)');
    expect(stop.reason).toContain('no test ran');
  });

  it('attack: one test of three newly skipped (the rest pass): UNKNOWN skips_grew, naming the recent pass it is held to', async () => {
    const rig = new Rig().write(CODE);
    await rig.spec(spec());
    const first = await verify(rig);
    expect(first).toMatchObject({ status: 'PASS' });
    rig.write({ 'tests/conftest.py': SKIP_ONE });
    const entry = await verify(rig);
    expect(entry).toMatchObject({ status: 'UNKNOWN', reason: 'skips_grew' });
    expect(entry.detail).toContain('2 ran (2 passed, 0 failed), 1 skipped; 0 skipped at receipt');
    expect((await shown(rig, entry.receipt)).tests).toMatchObject({ ran: 2, skipped: 1 });
    // A run recorded with more skips never lowers the bar: the next one is held to the fewest.
    expect(await verify(rig)).toMatchObject({ status: 'UNKNOWN', reason: 'skips_grew' });
  });

  it('max_skips set by the person (in the allowed spec) is the bar instead: a skip within it is a PASS', async () => {
    const rig = new Rig().write(CODE);
    await rig.spec(spec(', max_skips: 1'));
    expect(await verify(rig)).toMatchObject({ status: 'PASS' });
    rig.write({ 'tests/conftest.py': SKIP_ONE });
    expect(await verify(rig)).toMatchObject({ status: 'PASS' });
    await rig.spec(spec(', max_skips: 0'));
    expect(await verify(rig)).toMatchObject({ status: 'UNKNOWN', reason: 'skips_grew' });
  });

  it('min_tests: fewer tests than asked is UNKNOWN too_few_tests; a command with no summary vouch reads is too', async () => {
    const rig = new Rig().write(CODE);
    await rig.spec(spec(', min_tests: 5'));
    const entry = await verify(rig);
    expect(entry).toMatchObject({ status: 'UNKNOWN', reason: 'too_few_tests' });
    expect(entry.detail).toBe('min_tests is 5; pytest: 3 ran (3 passed, 0 failed), 0 skipped');
    await rig.spec(`version: 1\nchecks:\n  - {id: tests, run: ["true"], sources: ["*.py"], min_tests: 1}\n`);
    expect(await verify(rig)).toMatchObject({
      status: 'UNKNOWN',
      reason: 'too_few_tests',
      detail: 'min_tests is 1; no test runner summary vouch can read was in the output',
    });
  });

  it('where no runner summary is recognised nothing changes, and an advisory check that ran no test stays a PASS', async () => {
    const rig = new Rig().write({ ...CODE, 'tests/conftest.py': SKIP_ALL });
    await rig.spec(
      `version: 1\nchecks:\n  - {id: plain, run: ["true"], sources: ["*.py"]}\n  - {id: advisory, run: ${PYTEST}, sources: ["*.py"], block: false}\n`,
    );
    const checks = (await rig.run(['verify', '--json'])).json<{ checks: Entry[] }>().checks;
    expect(checks.map((c) => [c.status, c.reason])).toEqual([
      ['PASS', 'ok'],
      ['PASS', 'ok'],
    ]);
    expect((await shown(rig, checks[0]!.receipt)).tests).toBeUndefined();
    expect((await shown(rig, checks[1]!.receipt)).tests).toMatchObject({ ran: 0, skipped: 3 });
  });

  it('min_tests and max_skips enter the definition digest: setting one turns the PASS STALE', async () => {
    const rig = new Rig().write(CODE);
    await rig.spec(spec());
    await verify(rig);
    await rig.spec(spec(', min_tests: 2'));
    const status = (await rig.run(['status', '--json'])).json<{ checks: Entry[] }>().checks[0]!;
    expect(status).toMatchObject({ status: 'STALE', reason: 'definition_changed' });
  });
});
