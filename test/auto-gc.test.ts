import { describe, expect, it } from 'vitest';
import { card, opened } from './helpers/cards.js';
import { Rig } from './helpers/rig.js';

/*
 * The automatic gc: a person's `vouch verify` prunes a ledger over its
 * retention: policy (by at least retention.auto entries), bounded, recorded
 * like gc; never from inside an agent run; open cards and unstopped
 * sessions stay safe; `vouch audit` intact after it.
 */

const spec = (retention: string) => `version: 1
retention: ${retention}
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt"]
    sources: ["src/**"]
`;

async function workspace(retention = '{per_check: 1, auto: 2}'): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  await rig.spec(spec(retention));
  return rig;
}

async function verify(rig: Rig, env: Record<string, string> = {}) {
  const result = await rig.run(['verify', '--json'], { env });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

async function auditIntact(rig: Rig): Promise<{ gc_records: number; receipts: number }> {
  const audit = await rig.run(['audit', '--json']);
  expect(audit.code, audit.stdout).toBe(0);
  return audit.json();
}

describe("the automatic gc after a person's vouch verify", () => {
  it('runs once the policy would remove retention.auto entries, says so, records a gc, and leaves the audit intact and the status PASS', async () => {
    const rig = await workspace();
    expect((await verify(rig)).json().auto_gc).toBeUndefined();
    // Two receipts, per_check 1: one candidate, below the threshold of 2.
    expect((await verify(rig)).json().auto_gc).toBeUndefined();
    const third = await verify(rig);
    expect(third.json().auto_gc).toMatchObject({ ran: true, removed: 2, deferred: 0 });
    expect(third.stderr).toMatch(/automatic gc \(retention: in vouch\.yaml\): removed 2 entries/);
    const audit = await auditIntact(rig);
    expect(audit).toMatchObject({ gc_records: 1, receipts: 1 });
    expect((await rig.run(['status', '--json'])).json().checks[0].status).toBe('PASS');
    // Within policy again: the next verify adds one candidate, below the threshold, and prunes nothing.
    expect((await verify(rig)).json().auto_gc).toBeUndefined();
  });

  it('auto: 0 never runs it; vouch gc still applies the policy', async () => {
    const rig = await workspace('{per_check: 1, auto: 0}');
    for (let i = 0; i < 4; i++) expect((await verify(rig)).json().auto_gc).toBeUndefined();
    expect((await rig.run(['gc', '--json'])).json()).toMatchObject({ removed: 3 });
  });

  it("attack: an agent's verify (inside its run) never triggers it, however far over policy the ledger is", async () => {
    const rig = await workspace();
    for (let i = 0; i < 4; i++) expect((await verify(rig, { CLAUDECODE: '1' })).json().auto_gc).toBeUndefined();
    expect((await auditIntact(rig)).gc_records).toBe(0);
    // The person's next verify does.
    expect((await verify(rig)).json().auto_gc).toMatchObject({ ran: true, removed: 4 });
  });

  it('keeps what an open card decides on: the card stays completable', async () => {
    const rig = await workspace();
    await verify(rig);
    await verify(rig);
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    // Three candidates (the two older runs and the card's PASS): the two go, the card's and every later one stay.
    expect((await verify(rig)).json().auto_gc).toMatchObject({ ran: true, removed: 2, retained: 1 });
    expect((await verify(rig)).json().auto_gc).toMatchObject({ ran: true, removed: 0, retained: 2 });
    await auditIntact(rig);
    const done = await card(rig, ['complete', id]);
    expect(done.code, done.stderr).toBe(0);
  });

  it('attack: verify with the markers stripped during an agent session: the gc waits while that session is active (its record would hold the stop), and names it', async () => {
    const rig = await workspace();
    await verify(rig);
    const hookInput = JSON.stringify({
      session_id: 'sess-auto',
      cwd: rig.root,
      transcript_path: '/dev/null',
      hook_event_name: 'PostToolUse',
      tool_name: 'Write',
      tool_input: { file_path: rig.path('src/a.txt'), content: 'good\n' },
      tool_response: {},
      tool_use_id: 't1',
    });
    expect((await rig.run(['hook', 'claude-code', 'PostToolUse'], { stdin: hookInput })).code).toBe(0);
    await verify(rig);
    const waited = await verify(rig);
    expect(waited.json().auto_gc).toMatchObject({ ran: false, why: 'session_active', detail: expect.stringContaining('sess-auto') });
    expect(waited.stderr).toContain('the automatic gc waits');
    expect((await auditIntact(rig)).gc_records).toBe(0);
    // Its stop lets it go: the next person's verify prunes.
    const stop = await rig.run(['hook', 'claude-code', 'Stop'], {
      stdin: JSON.stringify({ session_id: 'sess-auto', cwd: rig.root, transcript_path: '/dev/null', hook_event_name: 'Stop', stop_hook_active: false }),
    });
    expect(stop.stdout).not.toContain('"decision":"block"');
    expect((await verify(rig)).json().auto_gc).toMatchObject({ ran: true });
    await auditIntact(rig);
  });
});
