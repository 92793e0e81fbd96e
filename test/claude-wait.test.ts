import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BodyStore } from '../src/ledger/sqlite/body-store.js';
import { claudeBinary, hookResponses, runClaude } from './helpers/claude.js';
import { lastUserText, MockAnthropic, type Script } from './helpers/mock-anthropic.js';
import { Rig } from './helpers/rig.js';

/*
 * The gate's wait, through the real Claude Code CLI (`claude -p` against the
 * local mock of the Messages API): an honest agent is never stranded on time.
 */

let binary: string;
beforeAll(() => {
  binary = claudeBinary();
}, 600_000);

const mocks: MockAnthropic[] = [];
afterEach(async () => {
  for (const mock of mocks.splice(0)) await mock.close();
});

async function session(rig: Rig, script: Script) {
  const mock = new MockAnthropic(script);
  mocks.push(mock);
  const baseUrl = await mock.start();
  const configDir = join(rig.home, 'claude');
  mkdirSync(configDir, { recursive: true });
  const run = await runClaude(binary, { cwd: rig.root, configDir, baseUrl, prompt: 'Change a.txt and tell me when it is done.', env: rig.env(), tools: ['Write', 'Edit', 'Bash'], extraArgs: [] });
  return { run, mock };
}

function gateDecisions(rig: Rig): { decision: string; reason: string }[] {
  const db = new Database(rig.path('.vouch/ledger.db'), { readonly: true });
  try {
    const bodies = new BodyStore(db);
    const stored = db.prepare("SELECT body, dict FROM chain WHERE kind = 'gate' ORDER BY seq").all() as { body: string | Buffer; dict: number | null }[];
    return stored.map((row) => JSON.parse(bodies.decode(row)!) as { decision: string; reason: string });
  } finally {
    db.close();
  }
}

const write = (id: string, file_path: string, content: string) => ({ type: 'tool_use' as const, id, name: 'Write', input: { file_path, content } });
const say = (text: string) => ({ type: 'text' as const, text });

describe('the gate on time, with the real Claude Code CLI', () => {
  it('an honest session whose check takes longer than the budget (8 s against 3 s) ends allowed, not ESCAPED, with the check run once', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a\n' });
    await rig.spec('version: 1\ngate: {budget_seconds: 3, max_blocks: 3}\nchecks:\n  - {id: suite, run: ["sleep", "8"], sources: ["src/**"], timeout: 60}\n');
    const installed = await rig.run(['install', 'claude-code', '--no-sandbox']);
    expect(installed.code, installed.stderr).toBe(0);
    const { run, mock } = await session(rig, (_request, turn) => (turn === 0 ? [say('Changing a.'), write('toolu_1', rig.path('src/a.txt'), 'b\n')] : [say('Done: a.txt is changed.')]));

    expect(run.code, run.stderr).toBe(0);
    const decisions = gateDecisions(rig);
    expect(decisions.at(-1)).toMatchObject({ decision: 'allow', reason: 'all_pass' });
    expect(decisions.some((d) => d.decision === 'escaped')).toBe(false);
    // Every block before it was the gate's own run still going: nothing the agent had to fix.
    expect(decisions.slice(0, -1).every((d) => d.decision === 'block' && d.reason === 'checks_running')).toBe(true);
    expect(decisions.length).toBeGreaterThan(1);
    expect(lastUserText(mock.turns[2]!)).toContain("still running in the gate's own runner");
    expect(hookResponses(run, 'Stop').at(-1)!.stdout.trim()).toBe('');
    const receipts = (await rig.run(['log', '--json'])).json<{ check_id: string; verdict: string; actor: string }[]>();
    expect(receipts.map((r) => [r.check_id, r.actor, r.verdict])).toEqual([['suite', 'hook', 'PASS']]);
    expect((await rig.run(['sessions', '--check'])).code).toBe(0);
  }, 300_000);
});
