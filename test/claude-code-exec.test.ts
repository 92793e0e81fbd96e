import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADD_GOOD as GOOD, ADD_SPEC as SPEC, ADD_TEST as TEST } from './helpers/add-project.js';
import { claudeBinary, runClaude } from './helpers/claude.js';
import { rows } from './helpers/ledger-db.js';
import { lastUserText, MockAnthropic, type Script } from './helpers/mock-anthropic.js';
import { Rig } from './helpers/rig.js';

/*
 * `install claude-code --no-sandbox --exec` with the real Claude Code CLI
 * (headless, against the local Messages API mock): its PreToolUse answer
 * (updatedInput) makes Claude Code run each Bash call as `vouch exec --
 * /bin/sh -c CMD`, so the agent reads vouch's VERIFIED line, and a write
 * to vouch.yaml hidden in a script fails in the sandbox.
 */
let binary: string;
beforeAll(() => {
  binary = claudeBinary();
}, 600_000);

const mocks: MockAnthropic[] = [];
afterEach(async () => {
  for (const mock of mocks.splice(0)) await mock.close();
});

const bash = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: { command, description: 'run a command' } });
const say = (text: string) => ({ type: 'text' as const, text });

async function session(rig: Rig, script: Script) {
  const mock = new MockAnthropic(script);
  mocks.push(mock);
  const baseUrl = await mock.start();
  const configDir = join(rig.home, 'claude');
  mkdirSync(configDir, { recursive: true });
  const run = await runClaude(binary, { cwd: rig.root, configDir, baseUrl, prompt: 'Check the project.', env: rig.env(), tools: ['Bash'], extraArgs: [] });
  return { run, mock };
}

describe('vouch exec as the Bash tool of the real Claude Code (--no-sandbox --exec)', () => {
  it("runs the agent's Bash calls through vouch exec: VERIFIED with a receipt, and a hidden write to vouch.yaml fails read-only", async () => {
    const rig = new Rig().write({ 'src/add.js': GOOD, 'test/add.test.js': TEST });
    await rig.spec(SPEC);
    rig.script('w.sh', 'echo pwned >> vouch.yaml');
    const installed = await rig.run(['install', 'claude-code', '--no-sandbox', '--exec']);
    expect(installed.code, installed.stderr).toBe(0);
    const spec = rig.read('vouch.yaml');
    const { run, mock } = await session(rig, (_request, turn) => {
      if (turn === 0) return [bash('toolu_1', 'echo hi > out.txt && cat out.txt')];
      if (turn === 1) return [bash('toolu_2', './w.sh')];
      return [say('Done.')];
    });
    expect(run.code, run.stderr).toBe(0);
    expect(lastUserText(mock.turns[1]!)).toMatch(/VERIFIED exit 0 · receipt [0-9a-z]{8}/);
    expect(lastUserText(mock.turns[2]!)).toMatch(/Read-only file system/);
    expect(rig.read('vouch.yaml')).toBe(spec);
    expect(rig.read('out.txt')).toBe('hi\n');
    const execs = rows(rig)
      .filter((row) => row.kind === 'exec')
      .map((row) => JSON.parse(row.body));
    expect(execs.map((e) => e.argv)).toEqual([
      ['/bin/sh', '-c', 'echo hi > out.txt && cat out.txt'],
      ['/bin/sh', '-c', './w.sh'],
    ]);
    expect(execs[0].agent).toBe('claude-code');
  }, 300_000);
});
