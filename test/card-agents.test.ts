import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { card, opened } from './helpers/cards.js';
import { claudeBinary, runClaude } from './helpers/claude.js';
import { codexBinary, runCodex } from './helpers/codex.js';
import { lastUserText, MockAnthropic, type MessagesRequest } from './helpers/mock-anthropic.js';
import { inputText, MockResponses } from './helpers/mock-openai.js';
import { CLI, Rig } from './helpers/rig.js';

/*
 * Task cards inside real agent runs: the real Claude Code (2.1.332) and Codex
 * (0.171.0) CLIs, headless, against local mocks of their model APIs. The
 * scripted agent tries the owner's acts through its own shell tool, and vouch
 * recognises the run from what the client itself puts in the environment.
 */

const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt"]
    sources: ["src/**"]
  - id: lint
    run: ["true"]
    sources: ["src/**"]
`;
const vouch = (...args: string[]) => ['node', CLI, ...args].map((a) => `'${a}'`).join(' ');

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  await rig.spec(SPEC);
  expect((await rig.run(['verify'])).code).toBe(0);
  return rig;
}

let claude: string;
let codex: string;
beforeAll(() => {
  // Installed into the test cache on first use; fails (never skips) when they cannot be.
  claude = claudeBinary();
  codex = codexBinary();
}, 900_000);

const closers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const mock of closers.splice(0)) await mock.close();
});

describe('task cards with the real Claude Code CLI', () => {
  it("refuses the owner's acts from its Bash tool, denies the worker's write of the proof script, and lets a verifier subagent write and bind it", async () => {
    const rig = await workspace();
    rig.write({
      '.claude/agents/verifier.md':
        "---\nname: verifier\ndescription: Writes and runs the proof scripts of vouch task cards.\n---\nYou write proof scripts from a card's done-when.\n",
    });
    // Unboxed: the verifier subagent writes .vouch/cards/ and records from its shell, which the box keeps read-only (docs/gate.md, The box).
    expect((await rig.run(['install', 'claude-code', '--no-sandbox'])).code).toBe(0);
    const id = await opened(rig, ['--proof-script', 'proof.sh', '--scope', 'src/**']);
    const script = rig.path(`.vouch/cards/${id}/proof.sh`);
    const proofBody = '#!/bin/sh\ngrep -q good src/a.txt\n';

    const isSubagent = (request: MessagesRequest) => JSON.stringify(request.messages[0]?.content ?? '').includes('SUBTASK');
    const main: MessagesRequest[] = [];
    const sub: MessagesRequest[] = [];
    const bash = (tid: string, command: string) => ({ type: 'tool_use' as const, id: tid, name: 'Bash', input: { command, description: 'run vouch' } });
    const mock = new MockAnthropic((request) => {
      if (isSubagent(request)) {
        sub.push(request);
        if (sub.length === 1) return [{ type: 'tool_use', id: 'toolu_s1', name: 'Write', input: { file_path: script, content: proofBody } }];
        if (sub.length === 2) return [bash('toolu_s2', `VOUCH_ROLE=verifier ${vouch('card', 'verify', id)}`)];
        return [{ type: 'text', text: 'Proof written and run.' }];
      }
      main.push(request);
      switch (main.length) {
        case 1:
          return [bash('toolu_1', vouch('card', 'reprove', id, '--proof', 'lint', '--why', 'the script is annoying'))];
        case 2:
          return [bash('toolu_2', `VOUCH_ROLE=owner ${vouch('card', 'complete', id, '--force', '--why', 'it is done, trust me')}`)];
        case 3:
          return [{ type: 'tool_use', id: 'toolu_3', name: 'Write', input: { file_path: script, content: '#!/bin/sh\nexit 0\n' } }];
        case 4:
          return [
            {
              type: 'tool_use',
              id: 'toolu_4',
              name: 'Agent',
              input: { description: 'write the proof', prompt: 'SUBTASK: write the proof script', subagent_type: 'verifier', run_in_background: false },
            },
          ];
        default:
          return [{ type: 'text', text: 'Done.' }];
      }
    });
    closers.push(mock);
    const configDir = join(rig.home, 'claude');
    mkdirSync(configDir, { recursive: true });
    const run = await runClaude(claude, {
      cwd: rig.root,
      configDir,
      baseUrl: await mock.start(),
      prompt: 'Work on the card.',
      env: rig.env(),
      tools: ['Bash', 'Write', 'Agent'],
    });
    expect(run.code, run.stderr).toBe(0);

    // The guard denies a person's acts on a card before the CLI would refuse them (card_agent_run, as the Codex case below shows).
    expect(lastUserText(main[1]!)).toContain('vouch denied this Bash command: it runs `vouch card reprove`');
    expect(lastUserText(main[2]!)).toContain('vouch denied this Bash command: it runs `vouch card complete --force`');
    expect(lastUserText(main[3]!)).toContain(`vouch denied this Write of .vouch/cards/${id}/proof.sh`);
    expect(lastUserText(sub[2]!)).toContain('PASS');

    expect(rig.read(`.vouch/cards/${id}/proof.sh`)).toBe(proofBody);
    const shown = (await card(rig, ['show', id])).json();
    expect(shown.proof.kind).toBe('script');
    expect(shown.state).toBe('open');
    expect(shown.events.map((e: { kind: string }) => e.kind)).toEqual(['opened', 'verdict']);
    expect(shown.events[1]).toMatchObject({
      verdict: 'PASS',
      script: { binding: 'first' },
      by: { role: 'verifier', role_from: 'VOUCH_ROLE', agent: 'claude-code' },
    });
  }, 300_000);
});

describe('task cards with the real Codex CLI', () => {
  it('refuses reprove and a forced close from its shell tool, whatever VOUCH_ROLE it sets', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const shell = (call_id: string, cmd: string) => ({ type: 'function_call' as const, call_id, name: 'exec_command', arguments: { cmd } });
    const mock = new MockResponses((_request, turn) => {
      if (turn === 0) return [shell('call_1', vouch('card', 'reprove', id, '--proof', 'lint', '--why', 'easier'))];
      if (turn === 1) return [shell('call_2', `VOUCH_ROLE=owner ${vouch('card', 'complete', id, '--force', '--why', 'done')}`)];
      return [{ type: 'message', text: 'Done.' }];
    });
    closers.push(mock);
    const run = await runCodex(codex, {
      cwd: rig.root,
      codexHome: join(rig.home, 'codex'),
      baseUrl: await mock.start(),
      prompt: 'Work on the card.',
      env: rig.env(),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(inputText(mock.turns[1]!)).toContain('inside an agent run (codex)');
    expect(inputText(mock.turns[2]!)).toContain('card_agent_run');
    const shown = (await card(rig, ['show', id])).json();
    expect(shown.proof.checks.map((c: { id: string }) => c.id)).toEqual(['tests']);
    expect(shown.events.map((e: { kind: string }) => e.kind)).toEqual(['opened']);
  }, 300_000);
});
