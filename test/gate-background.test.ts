import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * A check longer than gate.budget_seconds: the gate hands it to a runner of
 * its own (detached, its own process group) that records the receipt with
 * the gate's stamp; a later stop picks it up. The checks here wait for a
 * file the test writes (never for a time), so no assertion rests on a
 * timing margin.
 */

interface Payload {
  readonly [key: string]: unknown;
}

const hook = (rig: Rig, event: string, payload: Payload, session = 'sess-1') =>
  rig.run(['hook', 'claude-code', event], {
    stdin: JSON.stringify({ session_id: session, cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload }),
  });
const stop = (rig: Rig, active = false) => hook(rig, 'Stop', { stop_hook_active: active });
const wrote = (rig: Rig, path: string) =>
  hook(rig, 'PostToolUse', {
    tool_name: 'Write',
    tool_input: { file_path: rig.path(path), content: 'x' },
    tool_response: { type: 'update' },
    tool_use_id: 't1',
    duration_ms: 4,
  });

function reply(result: { code: number | null; stdout: string; stderr: string }): { decision?: string; reason?: string } {
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim() === '' ? {} : (JSON.parse(result.stdout) as { decision?: string; reason?: string });
}

/** A workspace whose check `slow` runs until the file `go` (outside the workspace) exists. */
async function slowWorkspace(extra = ''): Promise<{ rig: Rig; go: string }> {
  const rig = new Rig().write({ 'src/a.txt': 'x\n' });
  const go = join(dirname(rig.root), 'go');
  await rig.spec(
    `version: 1\ngate: {budget_seconds: 1, max_blocks: 1}\n${extra}checks:\n` +
      `  - {id: slow, run: ["sh", "-c", "while [ ! -e '${go}' ]; do sleep 0.05; done; echo done"], sources: ["src/**"], timeout: 120}\n`,
  );
  return { rig, go };
}

interface Logged {
  readonly id: string;
  readonly check_id: string;
  readonly verdict: string;
  readonly actor: string;
}

async function receiptsOf(rig: Rig, check: string): Promise<Logged[]> {
  return (await rig.run(['log', '--json'])).json<Logged[]>().filter((r) => r.check_id === check);
}

/** The gate stamp a receipt carries (which stop's session), or undefined. */
async function stampOf(rig: Rig, id: string): Promise<string | undefined> {
  return (await rig.run(['show', id, '--json'])).json<{ receipt: { gate?: { session: string } } }>().receipt.gate?.session;
}

/** Waits (polling, no deadline of its own: the test's timeout is the bound) until the check has a receipt. */
async function receiptAppears(rig: Rig, check: string): Promise<void> {
  while ((await receiptsOf(rig, check)).length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
}

describe('the gate on time: a check longer than the budget', () => {
  it('keeps running in the gate\'s own runner; the stops meanwhile say so, never "fix the cause", and never escape; a later stop picks up its PASS, run once', async () => {
    const { rig, go } = await slowWorkspace();
    await wrote(rig, 'src/a.txt');

    const first = reply(await stop(rig));
    expect(first.decision).toBe('block');
    expect(first.reason).toContain("still running in the gate's own runner, out of your reach");
    expect(first.reason).toContain('Nothing here is yours to fix');
    expect(first.reason).toContain('raise gate.budget_seconds');
    expect(first.reason).not.toContain('Fix the cause');
    // Under max_blocks: 1 a second block with no change would escape; a stop held only by the gate's own run does not.
    const second = reply(await stop(rig, true));
    expect(second.decision).toBe('block');
    expect(second.reason).toContain("still running in the gate's own runner");
    expect(existsSync(go)).toBe(false);
    // Nothing was recorded for the check while it ran: no UNKNOWN/interrupted receipt to quote.
    expect(await receiptsOf(rig, 'slow')).toEqual([]);

    writeFileSync(go, '');
    await receiptAppears(rig, 'slow');
    expect(reply(await stop(rig, true))).toEqual({});
    const receipts = await receiptsOf(rig, 'slow');
    // One run, by the gate's runner, stamped with the stop that started it.
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({ verdict: 'PASS', actor: 'hook' });
    expect(await stampOf(rig, receipts[0]!.id)).toBe('sess-1');
    const decisions = (await rig.run(['sessions', '--json'])).json().sessions[0].decisions as { decision: string; reason: string }[];
    expect(decisions.map((d) => `${d.decision}/${d.reason}`)).toEqual(['block/checks_running', 'block/checks_running', 'allow/all_pass']);
  });

  it('a stop while the runner still runs waits for it rather than starting another', async () => {
    const { rig, go } = await slowWorkspace();
    await wrote(rig, 'src/a.txt');
    expect(reply(await stop(rig)).decision).toBe('block');
    expect(reply(await stop(rig, true)).decision).toBe('block');
    writeFileSync(go, '');
    await receiptAppears(rig, 'slow');
    expect(reply(await stop(rig, true))).toEqual({});
    // Two stops while it ran, one run: the second stop waited on the first's runner.
    expect(await receiptsOf(rig, 'slow')).toHaveLength(1);
  });

  it('attack: a GateRun order the agent sends itself, naming a session vouch never saw here, records receipts that never let a stop through', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'x\n' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    const sha = (await rig.run(['checks', '--json'])).json<{ spec: { sha256: string } }>().spec.sha256;
    const order = { v: 1, root: rig.root, spec_sha256: sha, client: 'claude-code', session: 'forged', event: 'Stop', checks: ['t'] };
    const ran = await rig.run(['hook', 'claude-code', 'GateRun'], { stdin: JSON.stringify(order) });
    expect(ran.stderr).toContain('background run: ran');
    expect(await receiptsOf(rig, 't')).toHaveLength(1);
    await wrote(rig, 'src/a.txt');
    // The stop runs the check itself: the forged stamp's PASS does not count.
    expect(reply(await stop(rig))).toEqual({});
    const receipts = await receiptsOf(rig, 't');
    expect(receipts).toHaveLength(2);
    expect(await Promise.all(receipts.map((r) => stampOf(rig, r.id)))).toEqual(expect.arrayContaining(['forged', 'sess-1']));
  });

  it("status and checks warn beforehand when a blocking check's last run took longer than the budget", async () => {
    const rig = new Rig().write({ 'src/a.txt': 'x\n' });
    // sleep 1.5 takes at least 1.5 s, past a budget of 1 s however loaded the machine; true is far below it.
    await rig.spec(
      'version: 1\ngate: {budget_seconds: 1}\nchecks:\n  - {id: slow, run: ["sleep", "1.5"], sources: ["src/**"]}\n  - {id: fast, run: ["true"], sources: ["src/**"]}\n  - {id: advisory, run: ["sleep", "1.5"], sources: ["src/**"], block: false}\n',
    );
    expect((await rig.run(['checks', '--json'])).json<{ over_budget?: unknown }>().over_budget).toBeUndefined();
    expect((await rig.run(['verify'])).code).toBe(0);
    const status = await rig.run(['status', '--json']);
    expect(status.json<{ over_budget: { id: string; budget_seconds: number }[] }>().over_budget).toEqual([
      { id: 'slow', duration_ms: expect.any(Number), budget_seconds: 1 },
    ]);
    expect((await rig.run(['status'])).stdout).toMatch(
      /warning: slow's last run took [\d.]+s, longer than gate\.budget_seconds \(1s\)[\s\S]*raise gate\.budget_seconds/,
    );
    expect((await rig.run(['checks', '--json'])).json<{ over_budget: { id: string }[] }>().over_budget.map((s) => s.id)).toEqual(['slow']);
    expect((await rig.run(['checks'])).stdout).toContain("warning: slow's last run took");
  });
});
