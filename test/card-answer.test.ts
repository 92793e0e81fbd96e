import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { as, card, IN_CLAUDE_CODE, kinds, opened, refused } from './helpers/cards.js';
import { Rig, type RunResult } from './helpers/rig.js';

/*
 * The answer goes back: a card opened from an agent session tells that
 * session, once, at its next Stop, how it closed or what it asks, as
 * Claude Code's systemMessage. Through the real CLI's hook command.
 */

const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "check.sh"]
    sources: ["src/**", "check.sh"]
`;

const CHECK = `grep -q good src/a.txt && exit 0
echo 'checking src/a.txt' >&2
echo 'expected: good' >&2
echo "found: $(cat src/a.txt)" >&2
exit 1
`;

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n', 'check.sh': CHECK });
  await rig.spec(SPEC);
  return rig;
}

/** A coordinator inside Claude Code session `session` (its MCP server and Bash commands carry the session id). */
const fromSession = (session: string) => as('coordinator', { ...IN_CLAUDE_CODE, CLAUDE_CODE_SESSION_ID: session });

function hook(rig: Rig, event: string, session: string, payload: Record<string, unknown> = {}): Promise<RunResult> {
  return rig.run(['hook', 'claude-code', event], {
    stdin: JSON.stringify({ session_id: session, cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload }),
  });
}

/** The stop's reply on stdout: {} when it printed nothing (an allow with nothing to say). */
function reply(result: RunResult): { decision?: string; reason?: string; systemMessage?: string } {
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim() === '' ? {} : JSON.parse(result.stdout);
}

describe('the answer goes back to the session that opened the card', () => {
  it('tells the opening session once at its next Stop that the card is done; another session, and a SubagentStop, are told nothing', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests'], fromSession('sess-asker'));
    expect((await card(rig, ['show', id])).json().asked_from).toEqual({ client: 'claude-code', session: 'sess-asker' });
    // Nothing to say yet: the card is open.
    expect(reply(await hook(rig, 'Stop', 'sess-asker')).systemMessage).toBeUndefined();
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    expect((await card(rig, ['complete', id])).code).toBe(0);

    expect(reply(await hook(rig, 'Stop', 'sess-other')).systemMessage).toBeUndefined();
    // A subagent of the asking session stops with the same session id: it is not the asker's turn.
    expect(reply(await hook(rig, 'SubagentStop', 'sess-asker', { agent_id: 'a1', agent_type: 'general-purpose' })).systemMessage).toBeUndefined();

    const told = reply(await hook(rig, 'Stop', 'sess-asker'));
    expect(told).toEqual({ systemMessage: `${id} done - proof exit 0 - 1 run, 0 fixes` });
    const events = (await card(rig, ['show', id])).json().events;
    expect(events.at(-1)).toMatchObject({ kind: 'answered', to: { client: 'claude-code', session: 'sess-asker' }, line: told.systemMessage });
    expect(events.at(-1).answer).toBe(events.find((e: { kind: string }) => e.kind === 'completed').id);
    // Delivered once.
    expect(reply(await hook(rig, 'Stop', 'sess-asker')).systemMessage).toBeUndefined();
    expect((await kinds(rig, id)).filter((k) => k === 'answered')).toHaveLength(1);
    // Nothing is left for the session to look at: its next stops cost one missing file.
    expect(readdirSync(join(rig.home, 'crew', 'asked'))).toEqual([]);
  });

  it('counts the runs and the fixes: a FAIL, a fix, a PASS is "2 runs, 1 fix"', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests'], fromSession('sess-asker'));
    rig.write({ 'src/a.txt': 'bad\n' });
    expect((await card(rig, ['verify', id])).json().verdict).toBe('FAIL');
    rig.write({ 'src/a.txt': 'good\n' });
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    expect((await card(rig, ['complete', id])).code).toBe(0);
    expect(reply(await hook(rig, 'Stop', 'sess-asker')).systemMessage).toBe(`${id} done - proof exit 0 - 2 runs, 1 fix`);
  });

  it('asks the one question with the last two failure lines, then tells the close later', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests'], fromSession('sess-asker'));
    rig.write({ 'src/a.txt': 'bad\n' });
    await card(rig, ['verify', id]);
    expect((await card(rig, ['decide', id, 'ask', '--question', 'Should a.txt say good or bad?'], fromSession('sess-asker'))).code).toBe(0);
    expect(reply(await hook(rig, 'Stop', 'sess-asker')).systemMessage).toBe(`${id} asks: Should a.txt say good or bad? | expected: good | found: bad`);
    expect(reply(await hook(rig, 'Stop', 'sess-asker')).systemMessage).toBeUndefined();
    // The person answers; the work goes on and closes: that is a new answer.
    rig.write({ 'src/a.txt': 'good\n' });
    await card(rig, ['claim', id], as('worker'));
    await card(rig, ['verify', id]);
    expect((await card(rig, ['complete', id])).code).toBe(0);
    expect(reply(await hook(rig, 'Stop', 'sess-asker')).systemMessage).toBe(`${id} done - proof exit 0 - 2 runs, 1 fix`);
  });

  it('attack: the record of a delivered answer does not wake the coordinator for a second decision on the same event', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests'], fromSession('sess-asker'));
    rig.write({ 'src/a.txt': 'bad\n' });
    await card(rig, ['verify', id]);
    expect((await card(rig, ['decide', id, 'ask', '--question', 'good or bad?'], fromSession('sess-asker'))).code).toBe(0);
    expect(reply(await hook(rig, 'Stop', 'sess-asker')).systemMessage).toContain('asks: good or bad?');
    expect((await kinds(rig, id)).at(-1)).toBe('answered');
    refused(await card(rig, ['decide', id, 'retry', '--why', 'again'], fromSession('sess-asker')), 'card_decision_taken');
  });

  it('never decides the stop: a stop the gate blocks stays blocked, with the answer beside it; an allowed stop stays an allow', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests'], fromSession('sess-asker'));
    await card(rig, ['verify', id]);
    await card(rig, ['complete', id]);
    // The asking session itself broke a covered file: its stop is held, whatever the card says.
    rig.write({ 'src/a.txt': 'bad\n' });
    await hook(rig, 'PostToolUse', 'sess-asker', {
      tool_name: 'Write',
      tool_input: { file_path: rig.path('src/a.txt'), content: 'bad\n' },
      tool_response: {},
      tool_use_id: 't1',
    });
    const held = reply(await hook(rig, 'Stop', 'sess-asker'));
    expect(held.decision).toBe('block');
    expect(held.reason).toContain('tests');
    expect(held.systemMessage).toBe(`${id} done - proof exit 0 - 1 run, 0 fixes`);

    const other = await opened(rig, ['--proof', 'tests'], fromSession('sess-two'));
    rig.write({ 'src/a.txt': 'good\n' });
    await card(rig, ['verify', other]);
    await card(rig, ['complete', other]);
    const allowed = reply(await hook(rig, 'Stop', 'sess-two'));
    expect(allowed).toEqual({ systemMessage: `${other} done - proof exit 0 - 1 run, 0 fixes` });
  });

  it('tells how a card closed without a pass: the owner forced it, or abandoned it', async () => {
    const rig = await workspace();
    const forced = await opened(rig, ['--proof', 'tests'], fromSession('sess-asker'));
    const dropped = await opened(rig, ['--proof', 'tests'], fromSession('sess-asker'));
    expect((await card(rig, ['complete', forced, '--force', '--why', 'shipped by hand'])).code).toBe(0);
    expect((await card(rig, ['decide', dropped, 'abandon', '--why', 'not needed'])).code).toBe(0);
    const lines = reply(await hook(rig, 'Stop', 'sess-asker')).systemMessage?.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        `${forced} closed by the owner WITHOUT a passing proof (not done): shipped by hand`,
        `${dropped} abandoned, not done: not needed`,
      ]),
    );
    expect(lines).toHaveLength(2);
  });

  it('a card opened at a terminal, or from a session id that is not one, has no asker and tells nobody', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const odd = await opened(rig, ['--proof', 'tests'], fromSession('../../etc; rm -rf'));
    for (const c of [id, odd]) expect((await card(rig, ['show', c])).json().asked_from).toBeNull();
    expect(existsSync(join(rig.home, 'crew', 'asked'))).toBe(false);
  });
});

describe('Hermes: the line comes at the end of the turn, never in a Stop reply it cannot show', () => {
  const hermes = (rig: Rig, event: string, session: string, payload: Record<string, unknown> = {}) =>
    rig.run(['hook', 'hermes', event], { stdin: JSON.stringify({ session_id: session, cwd: rig.root, hook_event_name: event, ...payload }) });

  it("a closed card's line is not spent on Hermes's Stop (pre_verify cannot show it on a turn it lets end); TurnEnd gives it, once", async () => {
    const rig = await workspace();
    const session = '20261203_120000_a1b2c3';
    const id = await opened(rig, ['--proof', 'tests'], as('coordinator', { HERMES_SESSION_ID: session }));
    expect((await card(rig, ['show', id])).json().events[0].asked_from).toEqual({ client: 'hermes', session });
    expect((await card(rig, ['verify', id])).code).toBe(0);
    expect((await card(rig, ['complete', id])).code).toBe(0);
    const stop = await hermes(rig, 'Stop', session, { last_assistant_message: 'Done.', stop_hook_active: false });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).not.toContain('systemMessage');
    expect(await kinds(rig, id)).not.toContain('answered');
    const line = `${id} done - proof exit 0 - 1 run, 0 fixes`;
    const end = await hermes(rig, 'TurnEnd', session);
    expect(end.code, end.stderr).toBe(0);
    expect(JSON.parse(end.stdout)).toEqual({ systemMessage: line });
    expect((await hermes(rig, 'TurnEnd', session)).stdout).toBe('');
    // Another session's turn end is told nothing.
    expect((await hermes(rig, 'TurnEnd', '20261203_120000_other')).stdout).toBe('');
  });
});
