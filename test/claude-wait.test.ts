import { describe, expect, it } from 'vitest';
import { hookResponses } from './helpers/claude.js';
import { bash, claudeSessions, gateDecisions, say, write } from './helpers/claude-session.js';
import { lastUserText, type Script } from './helpers/mock-anthropic.js';
import { CLI, Rig } from './helpers/rig.js';

/*
 * The gate's wait, through the real Claude Code CLI (`claude -p` against the
 * local mock of the Messages API): an honest agent is never stranded on time.
 */

const claude = claudeSessions();

const session = (rig: Rig, script: Script, extraArgs: string[] = []) =>
  claude.session(rig, script, { prompt: 'Change a.txt and tell me when it is done.', extraArgs });

describe('the gate on time, with the real Claude Code CLI', () => {
  it('an honest session whose check takes longer than the budget (8 s against 3 s) ends allowed, not ESCAPED, with the check run once', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a\n' });
    await rig.spec('version: 1\ngate: {budget_seconds: 3, max_blocks: 3}\nchecks:\n  - {id: suite, run: ["sleep", "8"], sources: ["src/**"], timeout: 60}\n');
    const installed = await rig.run(['install', 'claude-code', '--no-sandbox']);
    expect(installed.code, installed.stderr).toBe(0);
    const { run, mock } = await session(rig, (_request, turn) =>
      turn === 0 ? [say('Changing a.'), write('toolu_1', rig.path('src/a.txt'), 'b\n')] : [say('Done: a.txt is changed.')],
    );

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

  it('an honest session where the agent ran the suite itself stops with the suite run once by the gate; a second stop with no change runs nothing', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'a\n' });
    await rig.spec('version: 1\nchecks:\n  - {id: suite, run: ["sh", "-c", "grep -q b src/a.txt"], sources: ["src/**"]}\n');
    const installed = await rig.run(['install', 'claude-code', '--no-sandbox']);
    expect(installed.code, installed.stderr).toBe(0);
    const first = await session(rig, (_request, turn) => {
      if (turn === 0) return [say('Changing a.'), write('toolu_1', rig.path('src/a.txt'), 'b\n')];
      if (turn === 1) return [say('Running the suite myself.'), bash('toolu_2', `${process.execPath} ${CLI} verify`)];
      return [say('Done: a.txt is changed and the suite passes.')];
    });
    expect(first.run.code, first.run.stderr).toBe(0);
    expect(gateDecisions(rig).map((d) => `${d.decision}/${d.reason}`)).toEqual(['allow/all_pass']);
    const receipts = async () => (await rig.run(['log', '--json'])).json<{ check_id: string; verdict: string; actor: string }[]>();
    // The agent's own run (which cannot vouch for it) and the gate's: the gate ran the suite once.
    expect((await receipts()).map((r) => `${r.actor}/${r.verdict}`).sort()).toEqual(['cli/PASS', 'hook/PASS']);

    const second = await session(rig, () => [say('Nothing left to change; done.')], ['--continue']);
    expect(second.run.code, second.run.stderr).toBe(0);
    expect(gateDecisions(rig).length).toBe(2);
    expect(gateDecisions(rig).at(-1)!.decision).toBe('allow');
    // The second stop ran nothing and recorded no receipt.
    expect(await receipts()).toHaveLength(2);
  }, 300_000);
});
