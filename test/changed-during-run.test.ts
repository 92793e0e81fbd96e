import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Rig, type RunResult } from './helpers/rig.js';
import { swapWatcher } from './helpers/swap-watcher.js';

/*
 * The gate's own run cannot be changed under it. Hashes before and after a
 * run cannot see a file swapped while it ran and put back before it ended;
 * every write moves the file's ctime, a rename its inode, so a covered file
 * whose identity moved during the run is UNKNOWN/changed_during_run, even
 * with its bytes back (src/scope/run-identity.ts).
 */

const SESSION = 'sess-swap';
const BROKEN = 'exports.add = (a, b) => a - b;\n';
const GOOD = 'exports.add = (a, b) => a + b;\n';

/**
 * The agent's watcher, left running in the background (`setsid nohup python3
 * w.py &`): it waits for a process whose environment has VOUCH_CHECK_ID
 * (and that runs in its workspace: other tests' checks run beside it),
 * writes the good module, lets the test load it, and writes the broken bytes
 * back. The `swapped`/`loaded`/`restored` files beside the workspace make the
 * order deterministic (the test loads the module only once it is swapped,
 * and ends only once it is restored): no timing margin decides the outcome.
 */
const WATCHER = swapWatcher({ pidFile: false });

/** The project's test: it loads the module once swapped in, says so, and asserts once the bytes are back. */
const TEST = `const fs = require('node:fs');
const path = require('node:path');
const { test } = require('node:test');
const assert = require('node:assert');
const base = path.resolve(__dirname, '..', '..');
const wait = (name) => { while (!fs.existsSync(path.join(base, name))) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10); };
wait('swapped');
const { add } = require('../src/add.js');
fs.writeFileSync(path.join(base, 'loaded'), '');
wait('restored');
test('adds', () => assert.strictEqual(add(2, 3), 5));
`;

const watchers: ChildProcess[] = [];
afterEach(() => {
  for (const watcher of watchers.splice(0)) {
    try {
      process.kill(-watcher.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

function hook(rig: Rig, event: string, payload: Record<string, unknown>): Promise<RunResult> {
  const stdin = JSON.stringify({ session_id: SESSION, cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload });
  return rig.run(['hook', 'claude-code', event], { stdin });
}

async function attacked(): Promise<{ rig: Rig; base: string; reset: () => void }> {
  const rig = new Rig().write({ 'src/add.js': BROKEN, 'test/add.test.js': TEST });
  await rig.spec('version: 1\nchecks:\n  - {id: tests, run: ["node", "--test", "test/"], timeout: 120, sources: ["src/**"], tests: ["test/**"]}\n');
  const base = dirname(rig.root);
  writeFileSync(join(base, 'good.js'), GOOD);
  writeFileSync(join(base, 'w.py'), WATCHER);
  // Its own session, as setsid gives it: outside anything vouch runs or kills.
  const watcher = spawn('python3', [join(base, 'w.py'), rig.root, base], { detached: true, stdio: 'ignore' });
  watchers.push(watcher);
  const reset = () => {
    for (const name of ['swapped', 'loaded', 'restored']) rmSync(join(base, name), { force: true });
  };
  return { rig, base, reset };
}

describe('a covered file swapped and restored during the run', () => {
  it('attack: a background watcher swaps a good src/add.js in when the check starts and writes the broken bytes back once the test loaded it: `vouch verify` is UNKNOWN/changed_during_run, not PASS', async () => {
    const { rig, base } = await attacked();
    const ran = await rig.run(['verify', '--json'], { timeoutMs: 150_000 });
    // The swap happened during the run, and the bytes are back.
    expect(existsSync(join(base, 'restored'))).toBe(true);
    expect(rig.read('src/add.js')).toBe(BROKEN);
    const entry = ran.json().checks[0];
    expect(entry).toMatchObject({ status: 'UNKNOWN', reason: 'changed_during_run' });
    expect(entry.detail).toContain('src/add.js was rewritten or replaced while the check ran');
    expect(ran.code).toBe(1);
  });

  it('attack: the same watcher under the gate: the Stop hook runs the check itself, records UNKNOWN/changed_during_run and blocks', async () => {
    const { rig, base, reset } = await attacked();
    await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'setsid nohup python3 w.py &' }, tool_use_id: 't1' });
    // The file the agent claims done; its write is on the trail.
    await hook(rig, 'PostToolUse', {
      tool_name: 'Write',
      tool_input: { file_path: rig.path('src/add.js'), content: BROKEN },
      tool_response: {},
      tool_use_id: 't2',
    });
    reset();
    const result = await hook(rig, 'Stop', { stop_hook_active: false });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(base, 'restored'))).toBe(true);
    const answer = JSON.parse(result.stdout);
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain('tests: UNKNOWN (changed_during_run)');
    const log = (await rig.run(['log', '--json'])).json();
    expect(log[0]).toMatchObject({ check_id: 'tests', verdict: 'UNKNOWN', reason: 'changed_during_run', actor: 'hook' });
  });

  it('an honest run that only reads its files is not flagged: node --test and pytest (which writes its cache beside the tests) PASS', async () => {
    const rig = new Rig().write({
      'src/add.js': GOOD,
      'test/add.test.js':
        "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../src/add.js');\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
      'py/calc.py': 'def add(a, b):\n    return a + b\n',
      'py/test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
    });
    await rig.spec(
      'version: 1\nchecks:\n  - {id: node, run: ["node", "--test", "test/"], sources: ["src/**"], tests: ["test/**"]}\n  - {id: py, cwd: py, run: ["/usr/bin/python3", "-m", "pytest", "-q"], sources: ["py/*.py"], inputs: ["py/conftest.py"]}\n',
    );
    const ran = (await rig.run(['verify', '--json'])).json().checks;
    expect(ran.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      ['node', 'PASS'],
      ['py', 'PASS'],
    ]);
    // Twice, with Python's and pytest's caches from the first run in place.
    expect((await rig.run(['verify', '--json'])).json().checks.map((c: { status: string }) => c.status)).toEqual(['PASS', 'PASS']);
  });
});
