import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { as, card, IN_CLAUDE_CODE, kinds, opened, refused } from './helpers/cards.js';
import { Rig } from './helpers/rig.js';

/*
 * Crew's coordinator, through the real CLI: one writer per card, the
 * coordinator's decisions, budgets that stop a worker, and a close that
 * only the gate's run of the frozen proof makes.
 */

const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "check.sh"]
    sources: ["src/**", "check.sh"]
  - id: flaky
    run: ["sh", "flaky.sh"]
    sources: ["src/**"]
`;

// PASSes on its first run only (its state file is outside every scope): a lucky green run.
const FLAKY = 'test -f .ran && exit 1\ntouch .ran\n';

// Fails with three lines on stderr, the last two naming what was expected and what was found.
const CHECK = `grep -q good src/a.txt && exit 0
echo 'checking src/a.txt' >&2
echo 'expected: good' >&2
echo "found: $(cat src/a.txt)" >&2
exit 1
`;

async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n', 'check.sh': CHECK, 'flaky.sh': FLAKY });
  await rig.spec(SPEC);
  return rig;
}

describe('one writer per card', () => {
  it('attack: a second worker claims a card another holds, and is refused with who holds it and how to reassign', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const first = await card(rig, ['claim', id, '--as', 'alice'], as('worker'));
    expect(first.code, first.stderr).toBe(0);
    expect(first.json().holder).toMatchObject({ name: 'alice' });
    const second = await card(rig, ['claim', id, '--as', 'bob'], as('worker'));
    refused(second, 'card_claimed');
    expect(second.json().error.message).toContain('held by "alice"');
    expect(second.json().error.hint).toContain(`vouch card claim ${id} --as bob --reassign --why`);
    // The default holder is the role and the agent client: a worker in Claude Code is not alice either.
    refused(await card(rig, ['claim', id], IN_CLAUDE_CODE), 'card_claimed');
    // The holder's own claim again is a new start, not a second writer.
    expect((await card(rig, ['claim', id, '--as', 'alice'], as('worker'))).code).toBe(0);
    expect(await kinds(rig, id)).toEqual(['opened', 'claimed', 'claimed']);
  });

  it('attack: a worker reassigns the card to itself, and is refused; the owner reassigns with a reason, recorded', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['claim', id, '--as', 'alice'], as('worker'));
    refused(await card(rig, ['claim', id, '--as', 'bob', '--reassign', '--why', 'mine now'], as('worker')), 'card_role_refused');
    refused(await card(rig, ['claim', id, '--as', 'bob', '--reassign'], {}), 'usage', 2);
    const moved = await card(rig, ['claim', id, '--as', 'bob', '--reassign', '--why', 'alice is stuck'], {});
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.json().holder).toMatchObject({ name: 'bob' });
    const claim = moved.json().events.at(-1);
    expect(claim).toMatchObject({ kind: 'claimed', holder: 'bob', reassigned_from: 'alice', why: 'alice is stuck', by: { role: 'owner' } });
    // Now alice is the second writer.
    refused(await card(rig, ['claim', id, '--as', 'alice'], as('worker')), 'card_claimed');
  });

  it('frees the card when it closes: nobody holds a done card', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['claim', id, '--as', 'alice'], as('worker'));
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    const done = await card(rig, ['complete', id]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.json().holder).toBeNull();
  });

  it('refuses a holder name that is not a name', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    refused(await card(rig, ['claim', id, '--as', 'a b; rm -rf'], as('worker')), 'usage', 2);
  });
});

describe('decisions: retry, rescope, split, abandon, ask; one per card event', () => {
  it('retry frees the card for a fresh worker; a worker cannot retry', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['claim', id, '--as', 'alice'], as('worker'));
    refused(await card(rig, ['decide', id, 'retry', '--why', 'again'], as('worker')), 'card_role_refused');
    const retried = await card(rig, ['decide', id, 'retry', '--why', 'alice went in circles'], as('coordinator'));
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.json().holder).toBeNull();
    expect((await card(rig, ['claim', id, '--as', 'bob'], as('worker'))).code).toBe(0);
    expect(retried.json().events.at(-1)).toMatchObject({ kind: 'decision', decision: 'retry', why: 'alice went in circles', by: { role: 'coordinator' } });
  });

  it('ask stores the one question and the last two failure lines of the proof', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    rig.write({ 'src/a.txt': 'bad\n' });
    expect((await card(rig, ['verify', id])).json().verdict).toBe('FAIL');
    refused(await card(rig, ['decide', id, 'ask'], as('coordinator')), 'usage', 2);
    const asked = await card(rig, ['decide', id, 'ask', '--question', 'Should a.txt say good or bad?'], as('coordinator'));
    expect(asked.code, asked.stderr).toBe(0);
    const failing = asked.json().events.find((e: { kind: string }) => e.kind === 'verdict').receipts[0].receipt;
    expect(asked.json().question).toEqual({ question: 'Should a.txt say good or bad?', failure_lines: ['expected: good', 'found: bad'], receipt: failing });
    expect(asked.json().events.at(-1)).toMatchObject({ decision: 'ask', why: 'Should a.txt say good or bad?' });
    const shown = await rig.run(['card', 'show', id]);
    expect(shown.stdout).toContain('asks:       Should a.txt say good or bad?');
    expect(shown.stdout).toContain('| found: bad');
    // The next claim answers it: the question is no longer open.
    expect((await card(rig, ['claim', id], as('worker'))).json().question).toBeNull();
  });

  it('attack: a coordinator takes a second decision on the same card event, and is refused until the card moves', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    rig.write({ 'src/a.txt': 'bad\n' });
    await card(rig, ['verify', id]);
    expect((await card(rig, ['decide', id, 'retry', '--why', 'once more'], as('coordinator'))).code).toBe(0);
    const second = await card(rig, ['decide', id, 'ask', '--question', 'really?'], as('coordinator'));
    refused(second, 'card_decision_taken');
    expect(second.json().error.message).toContain('one decision per card event');
    refused(await card(rig, ['decide', id, 'abandon', '--why', 'give up'], as('coordinator')), 'card_decision_taken');
    // A new event (a verdict) wakes it again.
    await card(rig, ['verify', id]);
    expect((await card(rig, ['decide', id, 'ask', '--question', 'good or bad?'], as('coordinator'))).code).toBe(0);
    // The owner, a person, is not held to it.
    expect((await card(rig, ['decide', id, 'rescope', '--why', 'more room', '--budget-attempts', '9'], {})).code).toBe(0);
    expect((await card(rig, ['decide', id, 'rescope', '--why', 'narrower', '--goal', 'say good'], {})).code).toBe(0);
  });

  it("a coordinator agent may retry and ask inside its run; every other decision stays a person's", async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    const inRun = as('coordinator', IN_CLAUDE_CODE);
    refused(await card(rig, ['decide', id, 'abandon', '--why', 'x'], inRun), 'card_agent_run');
    refused(await card(rig, ['decide', id, 'rescope', '--why', 'x', '--budget-attempts', '50'], inRun), 'card_agent_run');
    const asked = await card(rig, ['decide', id, 'ask', '--question', 'which page?'], inRun);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.json().events.at(-1).by).toMatchObject({ role: 'coordinator', agent: 'claude-code' });
    // A worker in the run cannot answer for the coordinator.
    refused(await card(rig, ['decide', id, 'retry', '--why', 'x'], IN_CLAUDE_CODE), 'card_role_refused');
  });
});

/** One Claude Code hook call, as the client makes it. */
function hook(rig: Rig, event: string, payload: Record<string, unknown>) {
  return rig.run(['hook', 'claude-code', event], {
    stdin: JSON.stringify({ session_id: 'sess-crew', cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload }),
  });
}

describe('closing: a PASS newer than the last change, and the proof once more on close', () => {
  it('runs the proof once more when the card closes, and records it as an audit on close', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await card(rig, ['verify', id]);
    const done = await card(rig, ['complete', id]);
    expect(done.code, done.stderr).toBe(0);
    expect(done.json().events.map((e: { kind: string }) => e.kind)).toEqual(['opened', 'verdict', 'completed', 'audit']);
    expect(done.json().events.at(-1)).toMatchObject({ kind: 'audit', verdict: 'PASS', on_close: true });
  });

  it('attack: a flaky proof closes on its one lucky green run: the run on close FAILs, is recorded, and opens a follow-up', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'flaky']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    const done = await card(rig, ['complete', id]);
    expect(done.code, done.stderr).toBe(0);
    const audit = done.json().events.find((e: { kind: string }) => e.kind === 'audit');
    expect(audit).toMatchObject({ verdict: 'FAIL', on_close: true });
    expect(audit.follow_up).toMatch(/^c-/);
    const board = (await card(rig, ['list'])).json().cards;
    expect(board.find((c: { id: string }) => c.id === id)).toMatchObject({ audit: 'FAIL', follow_ups: [audit.follow_up] });
  });

  it('attack: a worker writes src/a.txt after the PASS and back again: the files hash as before, and the close is still refused (card_changed_since)', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    // The agent's Write of the same bytes: nothing to see in the fingerprint, but it is a change after the PASS.
    const written = await hook(rig, 'PostToolUse', {
      tool_name: 'Write',
      tool_input: { file_path: rig.path('src/a.txt'), content: 'good\n' },
      tool_response: {},
      tool_use_id: 't1',
    });
    expect(written.code, written.stderr).toBe(0);
    const refusedClose = await card(rig, ['complete', id]);
    refused(refusedClose, 'card_changed_since');
    expect(refusedClose.json().error.message).toContain('src/a.txt was written after the PASS');
    // A write outside the proof's scope changes nothing it covers.
    await hook(rig, 'PostToolUse', { tool_name: 'Write', tool_input: { file_path: rig.path('notes.md'), content: 'x' }, tool_response: {}, tool_use_id: 't2' });
    expect((await card(rig, ['verify', id])).json().verdict).toBe('PASS');
    const done = await card(rig, ['complete', id]);
    expect(done.code, done.stderr).toBe(0);
  });
});

describe('budgets that stop a worker', () => {
  const bash = (rig: Rig, agent: string | null, command: string, event = 'PostToolUse', extra: Record<string, unknown> = {}) =>
    hook(rig, event, {
      ...(agent && { agent_id: agent, agent_type: 'general-purpose' }),
      tool_name: 'Bash',
      tool_input: { command },
      tool_response: { stdout: '', stderr: '' },
      tool_use_id: `t-${Math.random()}`,
      ...extra,
    });
  const denied = (result: { stdout: string }) => {
    if (result.stdout.trim() === '') return null;
    const out = JSON.parse(result.stdout) as { hookSpecificOutput?: { permissionDecision?: string; permissionDecisionReason?: string } };
    return out.hookSpecificOutput?.permissionDecision === 'deny' ? (out.hookSpecificOutput.permissionDecisionReason ?? '') : null;
  };

  it('attack: a worker fails five tool calls in a row: the card records why, and the guard denies that worker, no one else, until a decision', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await bash(rig, 'a1', `vouch card claim ${id}`);
    // Four failures, a success, four more: never five in a row.
    for (let i = 0; i < 4; i++) await bash(rig, 'a1', 'npm test', 'PostToolUseFailure', { error: 'exit 1' });
    await bash(rig, 'a1', 'ls');
    for (let i = 0; i < 4; i++) await bash(rig, 'a1', 'npm test', 'PostToolUseFailure', { error: 'exit 1' });
    expect(await kinds(rig, id)).toEqual(['opened']);
    expect(denied(await bash(rig, 'a1', 'ls', 'PreToolUse'))).toBeNull();
    await bash(rig, 'a1', 'npm test', 'PostToolUseFailure', { error: 'exit 1' });
    const shown = (await card(rig, ['show', id])).json();
    expect(shown.events.at(-1)).toMatchObject({
      kind: 'stopped',
      reason: 'failed_calls',
      failed_in_a_row: 5,
      worker: { client: 'claude-code', session: 'sess-crew', agent_id: 'a1' },
      by: { via: 'hook' },
    });
    const reason = denied(await bash(rig, 'a1', 'ls', 'PreToolUse'));
    expect(reason).toContain(`card ${id} over budget: stop and report`);
    expect(reason).toContain('5 failed tool calls in a row');
    // Another agent of the session is not this card's worker.
    expect(denied(await bash(rig, 'a2', 'ls', 'PreToolUse'))).toBeNull();
    // The coordinator's decision lifts it.
    expect((await card(rig, ['decide', id, 'retry', '--why', 'fresh start'], as('coordinator'))).code).toBe(0);
    expect(denied(await bash(rig, 'a1', 'ls', 'PreToolUse'))).toBeNull();
  });

  it('attack: a worker spends past --budget-tokens, counted from its transcript: the card records it and its next call is denied', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests', '--budget-tokens', '1000']);
    expect((await card(rig, ['show', id])).json().contract.budget_tokens).toBe(1000);
    const transcript = rig.path('../main.jsonl');
    const usage = (n: number) =>
      JSON.stringify({ type: 'assistant', message: { id: `m${n}`, role: 'assistant', usage: { input_tokens: 300, output_tokens: 100 } } });
    writeFileSync(transcript, `${usage(1)}\n${usage(2)}\n`);
    await bash(rig, null, `vouch card claim ${id}`, 'PostToolUse', { transcript_path: transcript });
    await bash(rig, null, 'ls', 'PostToolUse', { transcript_path: transcript });
    expect(await kinds(rig, id)).toEqual(['opened']);
    writeFileSync(transcript, `${usage(1)}\n${usage(2)}\n${usage(3)}\n`);
    await bash(rig, null, 'ls', 'PostToolUse', { transcript_path: transcript });
    expect((await card(rig, ['show', id])).json().events.at(-1)).toMatchObject({
      kind: 'stopped',
      reason: 'over_budget_tokens',
      tokens: 1200,
      budget_tokens: 1000,
    });
    expect(denied(await bash(rig, null, 'ls', 'PreToolUse'))).toContain('over budget: 1200 tokens spent of 1000 budgeted');
  });
});

describe("a card's worker at its SubagentStop: the gate runs the frozen proof", () => {
  const asWorker = (rig: Rig, agent: string, event: string, payload: Record<string, unknown>) =>
    hook(rig, event, { agent_id: agent, agent_type: 'general-purpose', ...payload });
  const claimFor = async (rig: Rig, agent: string, id: string) => {
    // The worker's claim, as its Bash call runs it, and the PostToolUse that binds the worker to the card.
    expect((await card(rig, ['claim', id], IN_CLAUDE_CODE)).code).toBe(0);
    await asWorker(rig, agent, 'PostToolUse', {
      tool_name: 'Bash',
      tool_input: { command: `vouch card claim ${id}` },
      tool_response: {},
      tool_use_id: 't-claim',
    });
  };
  const write = (rig: Rig, agent: string, text: string) => {
    rig.write({ 'src/a.txt': text });
    return asWorker(rig, agent, 'PostToolUse', {
      tool_name: 'Write',
      tool_input: { file_path: rig.path('src/a.txt'), content: text },
      tool_response: {},
      tool_use_id: `t-${Math.random()}`,
    });
  };
  const stop = (rig: Rig, agent: string, message: string) =>
    asWorker(rig, agent, 'SubagentStop', { last_assistant_message: message, stop_hook_active: false, agent_transcript_path: rig.path('../agent.jsonl') });
  const decision = (result: { stdout: string }) => (result.stdout.trim() === '' ? null : (JSON.parse(result.stdout) as { decision?: string; reason?: string }));
  const events = async (rig: Rig, id: string) => (await card(rig, ['show', id])).json().events as { kind: string; [key: string]: unknown }[];

  it('attack: a worker breaks the proof and says done: the gate runs the proof, records the FAIL as an attempt, holds the stop, and the card stays open', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await claimFor(rig, 'w1', id);
    await write(rig, 'w1', 'bad\n');
    const held = await stop(rig, 'w1', 'Done: src/a.txt is good.');
    expect(held.code, held.stderr).toBe(0);
    expect(decision(held)).toMatchObject({ decision: 'block' });
    expect(decision(held)!.reason).toContain(`card ${id}'s proof is FAIL: tests FAIL (exit_code)`);
    expect(decision(held)!.reason).toContain('Fix the work, not the proof');
    const shown = (await card(rig, ['show', id])).json();
    expect(shown.state).toBe('claimed');
    expect(shown.events.map((e: { kind: string }) => e.kind)).toEqual(['opened', 'claimed', 'verdict']);
    expect(shown.events.at(-1)).toMatchObject({ verdict: 'FAIL', attempt: 1, by: { role: 'verifier', role_from: 'gate', agent: 'claude-code', via: 'hook' } });
    // The receipt is the gate's own: stamped by this stop, never an agent-run one.
    const receipt = (await rig.run(['show', shown.events.at(-1).receipts[0].receipt, '--json'])).json();
    expect(receipt.receipt.gate).toEqual({ session: 'sess-crew', client: 'claude-code', event: 'SubagentStop' });
    expect(receipt.receipt.agent_run).toBeUndefined();
    const [dispatch] = (await rig.run(['fleet', '--json'])).json().dispatches;
    expect(dispatch.grade).toMatchObject({ outcome: 'contradicted', basis: 'card_proof', card: id, checks: [{ id: 'tests', status: 'FAIL' }] });
    // Its own `card complete` does not close it either: the newest verdict is the gate's FAIL.
    refused(await card(rig, ['complete', id], IN_CLAUDE_CODE), 'card_not_passing');
  });

  it("a worker that fixes the work closes the card by the gate's run, the proof runs once more on close, and the dispatch is verified", async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await claimFor(rig, 'w1', id);
    await write(rig, 'w1', 'bad\n');
    expect(decision(await stop(rig, 'w1', 'Done.'))).toMatchObject({ decision: 'block' });
    await write(rig, 'w1', 'good now\n');
    const let_go = await stop(rig, 'w1', 'Fixed: src/a.txt says good.');
    expect(let_go.code, let_go.stderr).toBe(0);
    expect(decision(let_go)?.decision).toBeUndefined();
    const shown = (await card(rig, ['show', id])).json();
    expect(shown.state).toBe('done');
    expect(shown.events.map((e: { kind: string }) => e.kind)).toEqual(['opened', 'claimed', 'verdict', 'verdict', 'completed', 'audit']);
    expect(shown.events.slice(3)).toMatchObject([
      { kind: 'verdict', verdict: 'PASS', attempt: 2, by: { role_from: 'gate' } },
      { kind: 'completed', by: { role_from: 'gate' } },
      { kind: 'audit', verdict: 'PASS', on_close: true },
    ]);
    const [dispatch] = (await rig.run(['fleet', '--json'])).json().dispatches;
    expect([dispatch.state, dispatch.verdict]).toEqual(['terminated', 'verified']);
  });

  it('attack: the worker runs `card verify` itself on good files; that PASS closes nothing, and the gate still runs the proof at its stop', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await claimFor(rig, 'w1', id);
    expect((await card(rig, ['verify', id], IN_CLAUDE_CODE)).json().verdict).toBe('PASS');
    refused(await card(rig, ['complete', id], IN_CLAUDE_CODE), 'card_pass_self_made');
    await write(rig, 'w1', 'bad\n');
    expect(decision(await stop(rig, 'w1', 'Done: verified it myself.'))).toMatchObject({ decision: 'block' });
    expect((await events(rig, id)).at(-1)).toMatchObject({ kind: 'verdict', verdict: 'FAIL', by: { role_from: 'gate' } });
  });

  it("attack: the card's proof passes while the worker's writes break another blocking check: the card closes on its proof, and the stop is still held on the other check", async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n', 'lib/b.txt': 'fine\n' });
    await rig.spec(`version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt"]
    sources: ["src/**"]
  - id: lib
    run: ["sh", "-c", "grep -q fine lib/b.txt"]
    sources: ["lib/**"]
`);
    const id = await opened(rig, ['--proof', 'tests']);
    await claimFor(rig, 'w1', id);
    await write(rig, 'w1', 'good, still\n');
    rig.write({ 'lib/b.txt': 'broken\n' });
    await asWorker(rig, 'w1', 'PostToolUse', {
      tool_name: 'Write',
      tool_input: { file_path: rig.path('lib/b.txt'), content: 'broken\n' },
      tool_response: {},
      tool_use_id: 't-lib',
    });
    const held = await stop(rig, 'w1', 'Done.');
    expect(decision(held)).toMatchObject({ decision: 'block' });
    expect(decision(held)!.reason).toContain('lib: FAIL');
    expect((await card(rig, ['show', id])).json().state).toBe('done');
    const [dispatch] = (await rig.run(['fleet', '--json'])).json().dispatches;
    expect(dispatch.grade).toMatchObject({ outcome: 'contradicted', basis: 'own_writes' });
  });

  it('attack: a subagent that never claimed the card stops with it broken: no proof runs for it, and the card is untouched', async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof', 'tests']);
    await write(rig, 'w2', 'bad\n');
    const held = await stop(rig, 'w2', 'Done.');
    expect(decision(held)!.reason).not.toContain(`card ${id}`);
    expect((await events(rig, id)).map((e) => e.kind)).toEqual(['opened']);
  });

  it("a proof script no verifier has bound is not run by the gate (the worker could have left it there); the stop is judged as any subagent's", async () => {
    const rig = await workspace();
    const id = await opened(rig, ['--proof-script', 'proof.sh']);
    rig.write({ [`.vouch/cards/${id}/proof.sh`]: `#!/bin/sh\n${CHECK}` });
    await claimFor(rig, 'w1', id);
    await write(rig, 'w1', 'bad\n');
    const held = await stop(rig, 'w1', 'Done.');
    expect(decision(held)!.reason).toContain('tests: FAIL');
    expect((await events(rig, id)).map((e) => e.kind)).toEqual(['opened', 'claimed']);
  });
});
