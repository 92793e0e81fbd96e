import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { card, opened, refused } from './helpers/cards.js';
import { Rig } from './helpers/rig.js';

/*
 * gc never removes what something still open decides on: an open card's
 * verdict (and a FAIL after it), an unstopped session's trail. And `vouch
 * audit` is intact after every gc.
 */

const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt && test ! -f flaky.flag"]
    sources: ["src/**"]
`;

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  await rig.spec(SPEC);
  return rig;
}

async function audited(rig: Rig): Promise<{ ok: boolean; entries: number }> {
  const result = await rig.run(['audit', '--json']);
  expect(result.code, result.stdout).toBe(0);
  return result.json();
}

async function hook(rig: Rig, event: string, payload: Record<string, unknown>) {
  const stdin = JSON.stringify({ session_id: 'sess-gc', cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload });
  return rig.run(['hook', 'claude-code', event], { stdin });
}

describe('gc keeps what an open card still decides on', () => {
  it("an open card whose PASS is no longer the check's latest receipt stays completable after gc --keep-per-check 1", async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    expect((await rig.run(['verify', 'tests'])).code).toBe(0);
    expect((await rig.run(['verify', 'tests'])).code).toBe(0);
    const gc = await rig.run(['gc', '--keep-per-check', '1', '--json']);
    expect(gc.code, gc.stderr).toBe(0);
    // Of the three receipts, the card's and everything after it stay: the policy's two are kept.
    expect(gc.json()).toMatchObject({ removed: 0, retained: 2 });
    const done = await card(rig, ['complete', id]);
    expect(done.code, done.stderr).toBe(0);
    await audited(rig);
  });

  it("attack: a FAIL after the card's PASS, then a green run, then gc: the FAIL is kept, so the card is still refused (card_failed_since)", async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    rig.write({ 'flaky.flag': '' });
    expect((await rig.run(['verify', 'tests'])).code).toBe(1);
    rmSync(rig.path('flaky.flag'));
    expect((await rig.run(['verify', 'tests'])).code).toBe(0);
    refused(await card(rig, ['complete', id]), 'card_failed_since');
    expect((await rig.run(['gc', '--keep-per-check', '1'])).code).toBe(0);
    refused(await card(rig, ['complete', id]), 'card_failed_since');
    await audited(rig);
  });

  it('once the card is closed, its receipts go like any others', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['verify', id]);
    expect((await card(rig, ['complete', id])).code).toBe(0);
    expect((await rig.run(['verify', 'tests'])).code).toBe(0);
    // The card's verify and the run on close both go; the newest verify stays.
    expect((await rig.run(['gc', '--keep-per-check', '1', '--json'])).json()).toMatchObject({ removed: 2, retained: 0 });
    await audited(rig);
  });
});

describe('gc keeps the trail of a session not seen stopping', () => {
  it("keeps an unstopped session's tool calls at --keep-days 0; after its Stop lets it go, they go", async () => {
    const rig = await workspace();
    expect((await rig.run(['verify'])).code).toBe(0);
    await hook(rig, 'PostToolUse', {
      tool_name: 'Write',
      tool_input: { file_path: rig.path('src/a.txt'), content: 'good\n' },
      tool_response: {},
      tool_use_id: 't1',
    });
    const kept = await rig.run(['gc', '--keep-days', '0', '--json']);
    expect(kept.json()).toMatchObject({ removed: 0, trailRemoved: 0, retained: 1 });
    const stop = await hook(rig, 'Stop', { stop_hook_active: false });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).not.toContain('"decision":"block"');
    const gone = await rig.run(['gc', '--keep-days', '0', '--json']);
    expect(gone.json()).toMatchObject({ trailRemoved: 1, retained: 0 });
    await audited(rig);
  });
});

describe('gc --dry-run', () => {
  it('lists what would go and removes and records nothing', async () => {
    const rig = await workspace();
    for (let i = 0; i < 3; i++) expect((await rig.run(['verify', 'tests'])).code).toBe(0);
    const before = await audited(rig);
    const dry = await rig.run(['gc', '--keep-per-check', '1', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.json()).toMatchObject({ dryRun: true, removed: 2 });
    expect(dry.json().planned.map((e: { kind: string; check_id: string }) => [e.kind, e.check_id])).toEqual([
      ['receipt', 'tests'],
      ['receipt', 'tests'],
    ]);
    const words = await rig.run(['gc', '--keep-per-check', '1', '--dry-run']);
    expect(words.stdout).toContain('2 entries would be removed (dry run: nothing removed)');
    expect((await audited(rig)).entries).toBe(before.entries);
    expect((await rig.run(['gc', '--keep-per-check', '1', '--json'])).json()).toMatchObject({ removed: 2 });
  });
});
