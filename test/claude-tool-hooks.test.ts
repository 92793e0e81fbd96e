import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claudeBinary, hookResponses } from './helpers/claude.js';
import { bash, claudeSession, gateDecisions, say, type MockList } from './helpers/claude-session.js';
import { Rig } from './helpers/rig.js';

/*
 * Every tool call's end reaches vouch through the real Claude Code CLI
 * (`claude -p` against the local mock of the Messages API): PostToolUse for
 * every tool, PostToolUseFailure for the calls that fail, so a card worker's
 * budget counts every call; a call that only reads names no write.
 */

let binary: string;
beforeAll(() => {
  binary = claudeBinary();
}, 600_000);

const mocks: MockList = [];
afterEach(async () => {
  for (const mock of mocks.splice(0)) await mock.close();
});

const read = (id: string, file_path: string) => ({ type: 'tool_use' as const, id, name: 'Read', input: { file_path } });

interface TrailEntry {
  readonly event: string;
  readonly tool: string | null;
  readonly paths: string[];
  readonly opaque_writes: boolean;
}

describe('tool hooks, with the real Claude Code CLI', () => {
  it('a failed Bash and a failed Read reach the PostToolUseFailure hook, a Read the PostToolUse hook; a session that only read stops with no run', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a\n' });
    await rig.spec('version: 1\nchecks:\n  - {id: suite, run: ["sh", "-c", "grep -q a src/a.txt"], sources: ["src/**"]}\n');
    const installed = await rig.run(['install', 'claude-code', '--no-sandbox']);
    expect(installed.code, installed.stderr).toBe(0);
    const { run } = await claudeSession(
      binary,
      rig,
      mocks,
      (_request, turn) => {
        if (turn === 0) return [say('Looking around.'), bash('toolu_1', 'ls src/missing')];
        if (turn === 1) return [read('toolu_2', rig.path('src/missing.txt'))];
        if (turn === 2) return [read('toolu_3', rig.path('src/a.txt'))];
        return [say('Nothing needed changing; done.')];
      },
      { tools: ['Read', 'Bash'] },
    );
    expect(run.code, run.stderr).toBe(0);

    const failures = hookResponses(run, 'PostToolUseFailure');
    expect(failures.length, JSON.stringify(run.events.filter((e) => e.subtype === 'hook_response').map((e) => e.hook_event))).toBeGreaterThanOrEqual(1);
    const session = (await rig.run(['sessions', '--json'])).json<{ sessions: { trail: TrailEntry[] }[] }>().sessions[0]!;
    const calls = session.trail.map((t) => `${t.event}/${t.tool}`);
    expect(calls).toContain('PostToolUseFailure/Bash');
    expect(calls).toContain('PostToolUseFailure/Read');
    expect(calls).toContain('PostToolUse/Read');
    // Reading names no write and is not opaque: the stop has nothing to grade and runs nothing.
    expect(session.trail.some((t) => t.opaque_writes)).toBe(false);
    expect(gateDecisions(rig).map((d) => d.decision)).toEqual(['allow']);
    expect((await rig.run(['log', '--json'])).json<unknown[]>()).toHaveLength(0);
  }, 300_000);
});
