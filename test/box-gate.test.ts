import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * The gate knows whether the agent worked in the box (issue 23): each
 * session's record says whether Claude Code's sandbox held what vouches
 * read-only at its first hook, `gate.require_box` blocks a stop without it
 * (box_off), and `vouch sessions --check` fails a session that escaped,
 * was blocked last, or whose stop the gate never saw. Driven through the
 * hook payloads Claude Code sends; test/claude-box.test.ts drives the real
 * client.
 */

const SPEC = (extra = '') => `version: 1
checks:
  - id: tests
    run: ["sh", "test/check.sh"]
    sources: ["src/**"]
    tests: ["test/**"]
protect: ["test/**"]
${extra}`;

async function hook(rig: Rig, session: string, event: string, payload: Record<string, unknown> = {}) {
  const stdin = JSON.stringify({ session_id: session, cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload });
  const result = await rig.run(['hook', 'claude-code', event], { stdin });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim() === '' ? {} : (JSON.parse(result.stdout) as { decision?: string; reason?: string });
}

const call = (rig: Rig, session: string) =>
  hook(rig, session, 'PostToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: '' }, tool_use_id: 't1' });
const stop = (rig: Rig, session: string) => hook(rig, session, 'Stop', { stop_hook_active: false });

async function workspace(extra: string, install: string[]): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n', 'test/check.sh': 'grep -q good src/a.txt\n' });
  await rig.spec(SPEC(extra));
  const installed = await rig.run(['install', 'claude-code', ...install]);
  expect(installed.code, installed.stderr).toBe(0);
  return rig;
}

describe('gate.require_box', () => {
  it('attack: a session run without the box (install --no-sandbox) is blocked at its stop (box_off), and says what is missing', async () => {
    const rig = await workspace('gate: {require_box: true}\n', ['--no-sandbox']);
    await call(rig, 's-unboxed');
    const answer = await stop(rig, 's-unboxed');
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain('gate.require_box');
    expect(answer.reason).toContain('the sandbox is off (sandbox.enabled)');
    const [session] = (await rig.run(['sessions', '--json'])).json().sessions;
    expect(session.decisions.at(-1)).toMatchObject({ decision: 'block', reason: 'box_off' });
    expect(session.box).toMatchObject({ client: 'claude-code', on: false, gaps: expect.arrayContaining([{ kind: 'sandbox_off' }]) });
  });

  it('a session in the box (install claude-code) stops freely under require_box', async () => {
    const rig = await workspace('gate: {require_box: true}\n', []);
    await call(rig, 's-boxed');
    expect(await stop(rig, 's-boxed')).toEqual({});
    const [session] = (await rig.run(['sessions', '--json'])).json().sessions;
    expect(session).toMatchObject({ last: 'allow', stop_seen: true, box: { on: true, gaps: [] } });
    expect((await rig.run(['status'])).stdout).toContain('box: on');
  });

  it('attack: the box opened mid-session (an escape hatch in settings.local.json) blocks the stop, though the session began in it', async () => {
    const rig = await workspace('gate: {require_box: true}\n', []);
    writeFileSync(rig.path('.claude/settings.local.json'), '{}\n');
    await call(rig, 's-opened');
    writeFileSync(rig.path('.claude/settings.local.json'), JSON.stringify({ sandbox: { allowUnsandboxedCommands: true, excludedCommands: ['python3'] } }));
    const answer = await stop(rig, 's-opened');
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain('the box was on at its first hook, and now the agent may run commands outside it');
    expect(answer.reason).toContain('python3 run outside it');
    const status = await rig.run(['status', '--json']);
    expect(status.json().box).toMatchObject({ on: false, gaps: [{ kind: 'escape_hatch' }, { kind: 'excluded_commands', commands: ['python3'] }] });
  });

  it('attack: a spec path the box does not hold read-only (denyWrite edited by hand) is a box that is off', async () => {
    const rig = await workspace('gate: {require_box: true}\n', []);
    const settings = JSON.parse(rig.read('.claude/settings.json'));
    settings.sandbox.filesystem.denyWrite = settings.sandbox.filesystem.denyWrite.filter((p: string) => p !== '.vouch');
    writeFileSync(rig.path('.claude/settings.json'), JSON.stringify(settings));
    await call(rig, 's-hole');
    const answer = await stop(rig, 's-hole');
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain(`${rig.path('.vouch')} is writable (not in sandbox.filesystem.denyWrite)`);
  });

  it('without require_box, a session without the box is let through, and sessions and status say the box was off', async () => {
    const rig = await workspace('', ['--no-sandbox']);
    await call(rig, 's-plain');
    expect(await stop(rig, 's-plain')).toEqual({});
    const listed = await rig.run(['sessions']);
    expect(listed.stdout).toContain('box off');
    expect((await rig.run(['status'])).stdout).toContain('box: off (Claude Code): the sandbox is off');
  });
});

describe('vouch sessions --check', () => {
  it('exits 0 for a session that ended on an allowed stop, 1 for one blocked last, and names the session and why', async () => {
    const rig = await workspace('', []);
    await call(rig, 's-good');
    await stop(rig, 's-good');
    expect((await rig.run(['sessions', '--check'])).code).toBe(0);
    rig.write({ 'src/a.txt': 'bad\n' });
    await hook(rig, 's-bad', 'PostToolUse', { tool_name: 'Write', tool_input: { file_path: rig.path('src/a.txt') }, tool_response: {}, tool_use_id: 't2' });
    expect((await stop(rig, 's-bad')).decision).toBe('block');
    const checked = await rig.run(['sessions', '--check', '--json']);
    expect(checked.code).toBe(1);
    expect(checked.json().check).toEqual({ ok: false, failing: [{ session: 's-bad', reason: 'blocked' }] });
    expect((await rig.run(['sessions', '--check', 's-good'])).code).toBe(0);
  });

  it('attack: hooks switched off mid-session (disableAllHooks): tool calls on record and no stop seen fail the check (stop_never_seen)', async () => {
    const rig = await workspace('', []);
    await call(rig, 's-dark');
    // The agent's last tool call wrote disableAllHooks; Claude Code never calls the Stop hook, and `claude -p` exits 0.
    const plain = await rig.run(['sessions']);
    expect(plain.stdout).toContain('stop never seen: hooks switched off?');
    const checked = await rig.run(['sessions', '--check', 's-dark']);
    expect(checked.code).toBe(1);
    expect(checked.stderr).toContain('stop_never_seen');
    // Stopped once, then more tool calls and no stop: still not seen stopping.
    await stop(rig, 's-dark');
    expect((await rig.run(['sessions', '--check', 's-dark'])).code).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await call(rig, 's-dark');
    expect((await rig.run(['sessions', '--check', 's-dark', '--json'])).json().check.failing).toEqual([{ session: 's-dark', reason: 'stop_never_seen' }]);
  });

  it('a session with nothing on record, or no session at all, is no pass', async () => {
    const rig = await workspace('', []);
    const none = await rig.run(['sessions', '--check']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no session on record to check');
    const unknown = await rig.run(['sessions', '--check', 'never-ran', '--json']);
    expect([unknown.code, unknown.json().check.failing]).toEqual([1, [{ session: 'never-ran', reason: 'unknown_session' }]]);
  });
});
