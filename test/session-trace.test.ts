import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/** The counts VOUCH_TRACE=1 prints when an invocation's session closes. */
function traced(stderr: string): { spec_reads: number; ledger_opens: number } {
  const line = /^vouch trace: spec_reads=(\d+) ledger_opens=(\d+) /m.exec(stderr);
  expect(line, stderr).not.toBeNull();
  return { spec_reads: Number(line![1]), ledger_opens: Number(line![2]) };
}

describe('one session per invocation (VOUCH_TRACE=1)', () => {
  it('a Stop hook that runs a check itself reads the spec once and opens the ledger once', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    expect((await rig.run(['verify'])).code).toBe(0);
    const payload = (event: string, extra: object = {}) => JSON.stringify({ session_id: 's1', cwd: rig.root, hook_event_name: event, ...extra });
    // The session writes a covered file: its Stop must run the check (the gate's own PASS), not read a stored one.
    const write = { tool_name: 'Write', tool_input: { file_path: 'src/a.ts', content: 'b' } };
    expect((await rig.run(['hook', 'claude-code', 'PreToolUse'], { stdin: payload('PreToolUse', write) })).code).toBe(0);
    rig.write({ 'src/a.ts': 'b' });
    expect((await rig.run(['hook', 'claude-code', 'PostToolUse'], { stdin: payload('PostToolUse', { ...write, tool_response: {} }) })).code).toBe(0);
    const stop = await rig.run(['hook', 'claude-code', 'Stop'], { stdin: payload('Stop', { stop_hook_active: false }), env: { VOUCH_TRACE: '1' } });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).not.toContain('"decision":"block"');
    expect(traced(stop.stderr)).toEqual({ spec_reads: 1, ledger_opens: 1 });
    // The count is of a Stop that did work: the gate recorded its own receipt in that one ledger.
    const latest = (await rig.run(['log', '--json'])).json()[0];
    expect(latest).toMatchObject({ check_id: 't', verdict: 'PASS', gate: { session: 's1', client: 'claude-code', event: 'Stop' } });
  });

  it('a write-guard call opens no ledger at all', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    await rig.run(['verify']);
    const pre = JSON.stringify({ session_id: 's2', cwd: rig.root, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: 'src/a.ts' } });
    await rig.run(['hook', 'claude-code', 'PreToolUse'], { stdin: pre });
    const again = await rig.run(['hook', 'claude-code', 'PreToolUse'], { stdin: pre, env: { VOUCH_TRACE: '1' } });
    expect(traced(again.stderr).ledger_opens).toBe(0);
  });
});
