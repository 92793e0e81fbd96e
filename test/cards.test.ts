import { describe, expect, it } from 'vitest';
import { as, card, IN_CLAUDE_CODE, IN_CODEX, kinds, opened, refused } from './helpers/cards.js';
import { Rig } from './helpers/rig.js';

/*
 * Task cards through the real CLI: a proof frozen when the card opens,
 * closing refused (exit 4, with the reason) without a fresh PASS of it.
 * Every refusal is tried by walking the forbidden path.
 */

// tests passes while src/a.txt says good and no flaky.flag exists (a file
// outside its scope, to make one FAIL without changing the fingerprint).
const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt && test ! -f flaky.flag"]
    sources: ["src/**"]
  - id: lint
    run: ["true"]
    sources: ["src/**"]
`;

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  await rig.spec(SPEC);
  return rig;
}

describe('card open: the contract, and the proof frozen from the allowed spec', () => {
  it('refuses a card missing goal, artifact, done-when or proof, naming every missing part, and records nothing', async () => {
    const rig = await workspace();
    const full = { '--goal': 'g', '--artifact': 'src/a.txt', '--done-when': 'd', '--proof': 'tests' };
    for (const missing of Object.keys(full)) {
      const flags = Object.entries(full).flatMap(([flag, value]) => (flag === missing ? [] : [flag, value]));
      const result = await card(rig, ['open', ...flags]);
      refused(result, 'card_incomplete', 2);
      expect(result.json().error.more.map((p: { where: string }) => p.where)).toEqual([missing]);
    }
    const none = await card(rig, ['open']);
    expect(none.json().error.more.map((p: { where: string }) => p.where)).toEqual(['--goal', '--artifact', '--done-when', '--proof']);
    // Blank text is missing too.
    refused(await card(rig, ['open', '--goal', '  ', '--artifact', 'src/a.txt', '--done-when', 'd', '--proof', 'tests']), 'card_incomplete', 2);
    expect((await card(rig, ['list'])).json().cards).toEqual([]);
  });

  it('refuses an artifact outside the workspace, an unknown check, and both kinds of proof at once', async () => {
    const rig = await workspace();
    const base = ['open', '--goal', 'g', '--done-when', 'd'];
    refused(await card(rig, [...base, '--artifact', '../etc/passwd', '--proof', 'tests']), 'card_incomplete', 2);
    const unknown = await card(rig, [...base, '--artifact', 'src/a.txt', '--proof', 'test']);
    refused(unknown, 'check_not_found', 2);
    expect(unknown.json().error.message).toContain('did you mean "tests"');
    refused(await card(rig, [...base, '--artifact', 'src/a.txt', '--proof', 'tests', '--proof-script', 'p.sh']), 'card_incomplete', 2);
  });

  it('freezes the proof only from an allowed spec: an edited, unallowed vouch.yaml opens nothing', async () => {
    const rig = await workspace();
    rig.write({ 'vouch.yaml': SPEC.replace('["true"]', '["false"]') });
    refused(await card(rig, ['open', '--goal', 'g', '--artifact', 'src/a.txt', '--done-when', 'd', '--proof', 'lint']), 'spec_not_allowed', 2);
  });

  it('prints the new id, snapshots the full check definitions and their digests, and records who opened it', async () => {
    const rig = await workspace();
    const result = await card(rig, [
      'open',
      '--goal',
      'make a good',
      '--artifact',
      'src/a.txt',
      '--done-when',
      'it says good',
      '--proof',
      'tests,lint',
      '--lands-at',
      'main',
      '--budget-attempts',
      '3',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const shown = result.json();
    expect(shown.id).toMatch(/^c-[0-9a-z]{8}$/);
    expect(shown).toMatchObject({
      state: 'open',
      grade: 'ungraded',
      passed: false,
      verify: 'proof',
      attempts: 0,
      contract: { goal: 'make a good', artifact: 'src/a.txt', done_when: 'it says good', lands_at: 'main', budget_attempts: 3 },
    });
    expect(shown.proof.kind).toBe('checks');
    expect(shown.proof.checks.map((c: { id: string }) => c.id)).toEqual(['tests', 'lint']);
    expect(shown.proof.checks[0]).toMatchObject({ run: ['sh', '-c', 'grep -q good src/a.txt && test ! -f flaky.flag'], sources: ['src/**'], timeout: 120 });
    expect(shown.proof.checks[0].definitionDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(shown.proof.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(shown.events).toHaveLength(1);
    expect(shown.events[0]).toMatchObject({ kind: 'opened', intact: true, by: { role: 'owner', role_from: 'default', agent: null, via: 'cli' } });
  });

  it('refuses a worker opening a card: whoever does the work does not write its acceptance check', async () => {
    const rig = await workspace();
    const flags = ['open', '--goal', 'g', '--artifact', 'src/a.txt', '--done-when', 'd', '--proof', 'tests'];
    refused(await card(rig, flags, as('worker')), 'card_role_refused');
    // Inside an agent run the default role is worker.
    refused(await card(rig, flags, IN_CLAUDE_CODE), 'card_role_refused');
    expect((await card(rig, flags, as('coordinator', IN_CODEX))).code).toBe(0);
  });
});

describe('the board', () => {
  it('shows a card never verified as ungraded, never as a blank', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const board = await rig.run(['card', 'list']);
    expect(board.code).toBe(0);
    const row = board.stdout.split('\n').find((line) => line.startsWith(id))!;
    expect(row.split(/\s{2,}/).slice(0, 4)).toEqual([id, 'open', 'ungraded', '0/5']);
    expect((await card(rig, ['list'])).json().cards[0]).toMatchObject({ id, grade: 'ungraded', state: 'open', passed: false });
  });

  it('--open leaves closed cards out', async () => {
    const rig = await workspace();
    const done = await opened(rig, ['--proof', 'lint']);
    await card(rig, ['verify', done]);
    expect((await card(rig, ['complete', done])).code).toBe(0);
    const open = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['list', '--open'])).json().cards.map((c: { id: string }) => c.id)).toEqual([open]);
    expect(
      (await card(rig, ['list']))
        .json()
        .cards.map((c: { id: string }) => c.id)
        .sort(),
    ).toEqual([done, open].sort());
  });
});

describe('card complete: refused without a fresh PASS of the frozen proof', () => {
  it('refuses with no PASS at all', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    refused(await card(rig, ['complete', id]), 'card_no_verdict');
    expect(await kinds(rig, id)).toEqual(['opened']);
  });

  it('refuses when the newest verdict is a FAIL', async () => {
    const rig = await workspace();
    rig.write({ 'src/a.txt': 'bad\n' });
    const id = await opened(rig, ['--proof', 'tests']);
    const verified = await card(rig, ['verify', id]);
    expect(verified.code).toBe(1);
    expect(verified.json()).toMatchObject({ ok: false, verdict: 'FAIL', reason: 'exit_code', attempt: 1 });
    refused(await card(rig, ['complete', id]), 'card_not_passing');
  });

  it('--lands-at BRANCH: refused outside git, on uncommitted changes, on a commit not on the branch; closes once the proven commit has landed', async () => {
    const { execFileSync } = await import('node:child_process');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd: rig.root,
        env: { PATH: process.env.PATH, HOME: rig.home },
      }).toString();
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests', '--lands-at', 'main']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    const outside = await card(rig, ['complete', id]);
    refused(outside, 'card_not_landed');
    expect(outside.json().error.message).toContain('outside any git commit');
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'base');
    git('checkout', '-qb', 'feature');
    rig.write({ 'src/a.txt': 'good\nand more\n' });
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    const dirty = await card(rig, ['complete', id]);
    refused(dirty, 'card_not_landed');
    expect(dirty.json().error.message).toContain('uncommitted changes');
    git('commit', '-qam', 'more');
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    const unmerged = await card(rig, ['complete', id]);
    refused(unmerged, 'card_not_landed');
    expect(unmerged.json().error.message).toMatch(/commit [0-9a-f]{12} it was taken at is not on main/);
    expect((await card(rig, ['show', id])).json().events.map((e: { kind: string }) => e.kind)).not.toContain('completed');
    git('checkout', '-q', 'main');
    git('merge', '-q', '--ff-only', 'feature');
    const landed = await card(rig, ['complete', id]);
    expect(landed.code, landed.stderr).toBe(0);
    expect(landed.json()).toMatchObject({ state: 'done', passed: true });
  });

  it('refuses a PASS older than the newest claim', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    expect((await card(rig, ['claim', id], as('worker'))).code).toBe(0);
    refused(await card(rig, ['complete', id]), 'card_pass_before_claim');
    // A verify after the claim proves the work since: now it closes.
    expect((await card(rig, ['verify', id], as('worker'))).json().verdict).toBe('PASS');
    const done = await card(rig, ['complete', id], as('worker'));
    expect(done.code, done.stderr).toBe(0);
    expect(done.json()).toMatchObject({ state: 'done', passed: true });
    expect(await kinds(rig, id)).toEqual(['opened', 'verdict', 'claimed', 'verdict', 'completed', 'audit']);
  });

  it('refuses a PASS followed by a FAIL of the card', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    rig.write({ 'src/a.txt': 'bad\n' });
    expect((await card(rig, ['verify', id])).json().verdict).toBe('FAIL');
    rig.write({ 'src/a.txt': 'good\n' });
    refused(await card(rig, ['complete', id]), 'card_not_passing');
  });

  it('refuses a PASS followed by a FAIL of the same check outside the card, on the very same files (a flaky proof)', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    rig.write({ 'flaky.flag': '' });
    expect((await rig.run(['verify', 'tests'])).code).toBe(1);
    await rig.run(['verify', 'lint']);
    // The covered files never changed, so the PASS is not STALE; the FAIL after it still counts.
    const result = await card(rig, ['complete', id]);
    refused(result, 'card_failed_since');
    expect(result.json().error.message).toContain('tests FAILed after the PASS');
  });

  it('refuses a STALE PASS: a covered file changed after the run', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    // Still "good", so the check would pass again: but this PASS is not about these bytes.
    rig.write({ 'src/a.txt': 'good, and edited after the run\n' });
    const result = await card(rig, ['complete', id]);
    refused(result, 'card_stale');
    expect(result.json().error.message).toContain('src/a.txt modified');
    const shown = (await card(rig, ['show', id])).json();
    expect(shown.complete_now).toMatchObject({ ok: false, code: 'card_stale' });
  });

  it('runs the snapshot, not an edited spec: weakening vouch.yaml after open (even allowed) cannot produce the PASS', async () => {
    const rig = await workspace();
    rig.write({ 'src/a.txt': 'bad\n' });
    const id = await opened(rig, ['--proof', 'tests']);
    // The proof is made toothless and a person allows it: the card does not follow.
    await rig.spec(SPEC.replace('["sh", "-c", "grep -q good src/a.txt && test ! -f flaky.flag"]', '["true"]'));
    expect((await rig.run(['verify', 'tests'])).code).toBe(0);
    const verified = await card(rig, ['verify', id]);
    expect(verified.json()).toMatchObject({ verdict: 'FAIL', reason: 'exit_code' });
    const receipt = (await rig.run(['show', verified.json().receipts[0].receipt, '--json'])).json();
    expect(receipt.receipt.argv).toEqual(['sh', '-c', 'grep -q good src/a.txt && test ! -f flaky.flag']);
    refused(await card(rig, ['complete', id]), 'card_not_passing');
    // The card text says the same proof it was opened with.
    expect((await card(rig, ['show', id])).json().proof.checks[0].run).toEqual(['sh', '-c', 'grep -q good src/a.txt && test ! -f flaky.flag']);
  });

  it('runs the snapshot even when vouch.yaml was edited and not allowed since, and a FAIL of the new definition does not count against it', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    rig.write({ 'vouch.yaml': SPEC.replace('grep -q good', 'grep -q great') });
    const verified = await card(rig, ['verify', id]);
    expect(verified.json().verdict).toBe('PASS');
    await rig.spec(SPEC.replace('grep -q good', 'grep -q great'));
    expect((await rig.run(['verify', 'tests'])).code).toBe(1);
    const done = await card(rig, ['complete', id]);
    expect(done.code, done.stderr).toBe(0);
  });

  it("refuses a worker closing an independent card, and a worker's PASS closing it for anyone", async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests', '--verify', 'independent']);
    await card(rig, ['claim', id], as('worker'));
    expect((await card(rig, ['verify', id], as('worker'))).json().verdict).toBe('PASS');
    refused(await card(rig, ['complete', id], as('worker')), 'card_role_refused');
    refused(await card(rig, ['complete', id], IN_CLAUDE_CODE), 'card_role_refused');
    // The verifier may close, but not on the worker's PASS.
    refused(await card(rig, ['complete', id], as('verifier')), 'card_pass_not_independent');
    expect((await card(rig, ['verify', id], as('verifier'))).json().verdict).toBe('PASS');
    const done = await card(rig, ['complete', id], as('verifier'));
    expect(done.code, done.stderr).toBe(0);
    const events = done.json().events;
    expect(events.filter((e: { kind: string }) => e.kind === 'verdict').map((e: { by: { role: string } }) => e.by.role)).toEqual(['worker', 'verifier']);
    expect(events.at(-2)).toMatchObject({ kind: 'completed', by: { role: 'verifier' } });
    expect(events.at(-1)).toMatchObject({ kind: 'audit', on_close: true, verdict: 'PASS' });
  });

  it('refuses any further act on a closed card', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['verify', id]);
    expect((await card(rig, ['complete', id])).code).toBe(0);
    refused(await card(rig, ['verify', id]), 'card_closed');
    refused(await card(rig, ['complete', id]), 'card_closed');
    refused(await card(rig, ['claim', id], as('worker')), 'card_closed');
  });
});

describe("complete --force: the owner's override, recorded as owner_close", () => {
  it('closes without a PASS, is shown as owner_close everywhere, and never as a pass', async () => {
    const rig = await workspace();
    rig.write({ 'src/a.txt': 'bad\n' });
    const id = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['verify', id]);
    const forced = await card(rig, ['complete', id, '--force', '--why', 'shipping the hotfix; test fixed in a follow-up']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.json()).toMatchObject({ state: 'owner_closed', passed: false, grade: 'FAIL' });
    const last = forced.json().events.at(-1);
    expect(last).toMatchObject({
      kind: 'owner_close',
      why: 'shipping the hotfix; test fixed in a follow-up',
      last_verdict: { verdict: 'FAIL' },
      by: { role: 'owner', agent: null },
    });
    expect((await card(rig, ['list'])).json().cards[0]).toMatchObject({ id, state: 'owner_closed', passed: false });
    const board = await rig.run(['card', 'list']);
    expect(board.stdout).toMatch(new RegExp(`${id}\\s+owner_close\\s+FAIL`));
    expect(board.stdout).not.toMatch(/\bdone\b/);
    const shown = await rig.run(['card', 'show', id]);
    expect(shown.stdout).toContain('owner_close');
    expect(shown.stdout).toContain('NOT a pass');
    // A later audit treats it as what it is: not done.
    refused(await card(rig, ['audit', id]), 'card_not_done');
  });

  it('needs --why, the owner, and a person: refused for a coordinator and inside an agent run', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    refused(await card(rig, ['complete', id, '--force']), 'usage', 2);
    refused(await card(rig, ['complete', id, '--force', '--why', 'x'], as('coordinator')), 'card_role_refused');
    refused(await card(rig, ['complete', id, '--force', '--why', 'x'], IN_CLAUDE_CODE), 'card_agent_run');
    refused(await card(rig, ['complete', id, '--force', '--why', 'x'], IN_CODEX), 'card_agent_run');
    // An agent that names itself the owner is refused as well.
    refused(await card(rig, ['complete', id, '--force', '--why', 'x'], as('owner', IN_CLAUDE_CODE)), 'card_agent_run');
    expect(await kinds(rig, id)).toEqual(['opened']);
  });
});

describe('decisions', () => {
  it('refuses a rescope that tries to move the proof, and keeps the snapshot exactly', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const before = (await card(rig, ['show', id])).json().proof;
    const moved = await card(rig, ['decide', id, 'rescope', '--why', 'tests are too strict', '--proof', 'lint'], as('coordinator'));
    refused(moved, 'card_proof_frozen');
    expect(moved.json().error.hint).toContain('reprove');
    refused(await card(rig, ['decide', id, 'rescope', '--why', 'x', '--proof-script', 'easy.sh'], as('owner')), 'card_proof_frozen');
    expect((await card(rig, ['show', id])).json().proof).toEqual(before);
    expect(await kinds(rig, id)).toEqual(['opened']);
  });

  it('records a rescope of the words and budget with the deciding role; the proof stays', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const before = (await card(rig, ['show', id])).json().proof;
    const result = await card(rig, ['decide', id, 'rescope', '--why', 'narrower', '--goal', 'make a good, only', '--budget-attempts', '9'], as('coordinator'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.json().contract).toMatchObject({ goal: 'make a good, only', budget_attempts: 9, done_when: 'src/a.txt says good' });
    expect(result.json().proof).toEqual(before);
    expect(result.json().events.at(-1)).toMatchObject({
      kind: 'decision',
      decision: 'rescope',
      why: 'narrower',
      changes: { goal: 'make a good, only', budget_attempts: 9 },
      by: { role: 'coordinator' },
    });
    refused(await card(rig, ['decide', id, 'rescope', '--why', 'same', '--goal', 'make a good, only'], as('coordinator')), 'card_decision_invalid');
  });

  it('refuses decisions by the worker and the verifier, and a decision without --why', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    refused(await card(rig, ['decide', id, 'abandon', '--why', 'too hard'], as('worker')), 'card_role_refused');
    // A decision is a person's act: refused inside an agent run whatever VOUCH_ROLE says (issue 23).
    refused(await card(rig, ['decide', id, 'abandon', '--why', 'too hard'], IN_CLAUDE_CODE), 'card_agent_run');
    refused(await card(rig, ['decide', id, 'abandon', '--why', 'too hard'], as('coordinator', IN_CLAUDE_CODE)), 'card_agent_run');
    refused(await card(rig, ['decide', id, 'abandon', '--why', 'x'], as('verifier')), 'card_role_refused');
    refused(await card(rig, ['decide', id, 'abandon'], as('coordinator')), 'usage', 2);
    refused(await card(rig, ['decide', id, 'abandon', '--why', 'x', '--into', id], as('coordinator')), 'usage', 2);
    expect(await kinds(rig, id)).toEqual(['opened']);
  });

  it('abandon and split close the card, never as a pass', async () => {
    const rig = await workspace();
    const a = await opened(rig, ['--proof', 'tests']);
    const b = await opened(rig, ['--proof', 'tests']);
    const c = await opened(rig, ['--proof', 'lint']);
    const abandoned = await card(rig, ['decide', a, 'abandon', '--why', 'not needed'], as('coordinator'));
    expect(abandoned.json()).toMatchObject({ state: 'abandoned', passed: false });
    refused(await card(rig, ['decide', b, 'split', '--why', 'two parts', '--into', 'c-zzzzzzzz'], as('coordinator')), 'card_not_found', 2);
    const split = await card(rig, ['decide', b, 'split', '--why', 'two parts', '--into', c], as('coordinator'));
    expect(split.json()).toMatchObject({ state: 'split', passed: false });
    expect(split.json().events.at(-1)).toMatchObject({ kind: 'decision', decision: 'split', into: [c] });
    refused(await card(rig, ['verify', a]), 'card_closed');
  });
});

describe('reprove: the owner changes the proof, outside any agent run', () => {
  it('is refused inside an agent run (Claude Code, Codex, AI_AGENT), whatever VOUCH_ROLE says, and for every role but the owner', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const reprove = ['reprove', id, '--proof', 'lint', '--why', 'tests are flaky'];
    for (const env of [IN_CLAUDE_CODE, IN_CODEX, { AI_AGENT: 'some-agent' }, as('owner', IN_CLAUDE_CODE), as('owner', IN_CODEX)]) {
      const result = await card(rig, reprove, env);
      refused(result, 'card_agent_run');
    }
    for (const role of ['worker', 'verifier', 'coordinator'] as const) refused(await card(rig, reprove, as(role)), 'card_role_refused');
    expect(await kinds(rig, id)).toEqual(['opened']);
  });

  it('by the owner at a terminal: a new snapshot, recorded with the reason; verdicts of the old proof no longer count', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    refused(await card(rig, ['reprove', id, '--proof', 'tests', '--why', 'same']), 'card_decision_invalid');
    const result = await card(rig, ['reprove', id, '--proof', 'tests,lint', '--why', 'lint must pass too']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json().proof.checks.map((c: { id: string }) => c.id)).toEqual(['tests', 'lint']);
    expect(result.json().events.at(-1)).toMatchObject({ kind: 'decision', decision: 'reprove', why: 'lint must pass too', by: { role: 'owner', agent: null } });
    expect(result.json().grade).toBe('ungraded');
    refused(await card(rig, ['complete', id]), 'card_no_verdict');
    await card(rig, ['verify', id]);
    expect((await card(rig, ['complete', id])).code).toBe(0);
  });
});

describe('budget', () => {
  it('stops a card that used its attempts and asks for a decision; a rescope of the budget lets it go on', async () => {
    const rig = await workspace();
    rig.write({ 'src/a.txt': 'bad\n' });
    const id = await opened(rig, ['--proof', 'tests', '--budget-attempts', '2']);
    expect((await card(rig, ['verify', id], as('worker'))).json().attempt).toBe(1);
    const second = await rig.run(['card', 'verify', id], { env: as('worker') });
    expect(second.code).toBe(1);
    expect(second.stdout).toContain('Budget spent (2/2)');
    const third = await card(rig, ['verify', id], as('worker'));
    refused(third, 'card_over_budget');
    expect(third.json().error.hint).toContain('rescope --budget-attempts');
    expect((await card(rig, ['list'])).json().cards[0]).toMatchObject({ attempts: 2, budget_attempts: 2, over_budget: true });
    expect((await rig.run(['card', 'list'])).stdout).toContain('budget spent: asks');
    // No receipt was run for the refused attempt.
    expect((await rig.run(['log', '--json'])).json()).toHaveLength(2);
    await card(rig, ['decide', id, 'rescope', '--why', 'one more try', '--budget-attempts', '3'], as('coordinator'));
    rig.write({ 'src/a.txt': 'good\n' });
    expect((await card(rig, ['verify', id], as('worker'))).json()).toMatchObject({ verdict: 'PASS', attempt: 3 });
    refused(await card(rig, ['verify', id], as('worker')), 'card_over_budget');
    expect((await card(rig, ['complete', id], as('worker'))).code).toBe(0);
  });
});

describe('the card command line', () => {
  it('names its subcommands, suggests the one meant, and takes -C before or after the subcommand', async () => {
    const rig = await workspace();
    refused(await card(rig, []), 'usage', 2);
    const typo = await card(rig, ['opne']);
    refused(typo, 'usage', 2);
    expect(typo.json().error.message).toContain('did you mean "open"');
    const elsewhere = new Rig();
    expect((await elsewhere.run(['card', '-C', rig.root, 'list', '--json'])).json()).toEqual({ cards: [] });
    expect((await elsewhere.run(['card', 'list', '-C', rig.root, '--json'])).json()).toEqual({ cards: [] });
    const help = await rig.run(['card', 'open', '--help']);
    expect(help.code).toBe(0);
    for (const word of [
      'open',
      'list',
      'show',
      'claim',
      'verify',
      'complete',
      'decide',
      'reprove',
      'audit',
      '--proof-script',
      '--budget-attempts',
      'VOUCH_ROLE',
      'card_stale',
    ])
      expect(help.stdout).toContain(word);
  });
});

describe('roles', () => {
  it('refuses an unknown VOUCH_ROLE with the list of roles', async () => {
    const rig = await workspace();
    const result = await card(rig, ['open', '--goal', 'g', '--artifact', 'src/a.txt', '--done-when', 'd', '--proof', 'tests'], { VOUCH_ROLE: 'admin' });
    refused(result, 'usage', 2);
    expect(result.json().error.expected).toContain('worker, verifier, coordinator, owner');
  });

  it('records who wrote each event: role, where it came from, and the agent client', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['claim', id], IN_CLAUDE_CODE);
    await card(rig, ['verify', id], as('verifier', IN_CODEX));
    const events = (await card(rig, ['show', id])).json().events;
    expect(events.map((e: { by: unknown }) => e.by)).toEqual([
      { role: 'owner', role_from: 'default', agent: null, via: 'cli' },
      { role: 'worker', role_from: 'default', agent: 'claude-code', via: 'cli' },
      { role: 'verifier', role_from: 'VOUCH_ROLE', agent: 'codex', via: 'cli' },
    ]);
    refused(await card(rig, ['claim', id], as('verifier')), 'card_role_refused');
  });
});
