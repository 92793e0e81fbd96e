import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * A proven state is not run again: a check whose definition, pins,
 * environment names and fingerprint equal those of an earlier PASS the gate
 * accepts (its own run) is PASS from that receipt, recorded as a receipt
 * naming it (reused_from). The check counts its own runs in a file outside
 * the workspace.
 */

interface Payload {
  readonly [key: string]: unknown;
}

const hook = (rig: Rig, event: string, payload: Payload) =>
  rig.run(['hook', 'claude-code', event], {
    stdin: JSON.stringify({ session_id: 'sess-1', cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload }),
  });
const stop = (rig: Rig) => hook(rig, 'Stop', { stop_hook_active: false });
const wrote = (rig: Rig, path: string) =>
  hook(rig, 'PostToolUse', {
    tool_name: 'Write',
    tool_input: { file_path: rig.path(path), content: 'x' },
    tool_response: { type: 'update' },
    tool_use_id: 't1',
    duration_ms: 4,
  });

async function edit(rig: Rig, content: string): Promise<void> {
  rig.write({ 'src/a.txt': content });
  await wrote(rig, 'src/a.txt');
}

function decision(result: { code: number | null; stdout: string; stderr: string }): string {
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim() === '' ? 'allow' : (JSON.parse(result.stdout) as { decision: string }).decision;
}

async function counted(extra = ''): Promise<{ rig: Rig; runs: () => number }> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  const count = join(dirname(rig.root), 'runs');
  writeFileSync(count, '');
  await rig.spec(`version: 1\nchecks:\n  - {id: t, run: ["sh", "-c", "echo run >> '${count}'; grep -q good src/a.txt"], sources: ["src/**"]${extra}}\n`);
  return { rig, runs: () => readFileSync(count, 'utf8').split('\n').filter(Boolean).length };
}

interface Logged {
  readonly id: string;
  readonly verdict: string;
}

const latest = async (rig: Rig) => (await rig.run(['log', '--json'])).json<Logged[]>()[0]!;
const body = async (rig: Rig, id: string) =>
  (await rig.run(['show', id, '--json'])).json<{ receipt: { reused_from?: string; ran: boolean; gate?: { session: string } } }>().receipt;

describe('a proven state is not run again', () => {
  it('reverting to a state a stop proved runs nothing: the stop records a receipt naming that PASS', async () => {
    const { rig, runs } = await counted();
    await edit(rig, 'good, first\n');
    expect(decision(await stop(rig))).toBe('allow');
    const proven = await latest(rig);
    expect(runs()).toBe(1);
    await edit(rig, 'bad\n');
    expect(decision(await stop(rig))).toBe('block');
    expect(runs()).toBe(2);
    await edit(rig, 'good, first\n');
    expect(decision(await stop(rig))).toBe('allow');
    // No third run: the PASS of this very state vouches, and the chain says so.
    expect(runs()).toBe(2);
    const reused = await latest(rig);
    expect(reused.verdict).toBe('PASS');
    expect(reused.id).not.toBe(proven.id);
    expect(await body(rig, reused.id)).toMatchObject({ reused_from: proven.id, ran: false, gate: { session: 'sess-1' } });
    // A second stop with no change runs nothing, and records no receipt.
    expect(decision(await stop(rig))).toBe('allow');
    expect(runs()).toBe(2);
    expect((await latest(rig)).id).toBe(reused.id);
  });

  it('attack: a PASS the agent recorded itself (inside its run) of a state is never reused by the gate: it runs the check', async () => {
    const { rig, runs } = await counted();
    await edit(rig, 'good, mine\n');
    expect((await rig.run(['verify'], { env: { CLAUDECODE: '1' } })).code).toBe(0);
    expect(runs()).toBe(1);
    expect(decision(await stop(rig))).toBe('allow');
    expect(runs()).toBe(2);
    expect((await body(rig, (await latest(rig)).id)).reused_from).toBeUndefined();
  });

  it('cache: false runs the check every time, a proven state included', async () => {
    const { rig, runs } = await counted(', cache: false');
    await edit(rig, 'good, first\n');
    expect(decision(await stop(rig))).toBe('allow');
    await edit(rig, 'bad\n');
    expect(decision(await stop(rig))).toBe('block');
    await edit(rig, 'good, first\n');
    expect(decision(await stop(rig))).toBe('allow');
    expect(runs()).toBe(3);
  });
});
