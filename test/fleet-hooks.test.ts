import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * Subagents as dispatches, through `vouch hook claude-code` with the payload
 * shapes Claude Code 2.1.332 sends (captured from the real CLI: SubagentStart
 * carries agent_id and agent_type but no prompt; SubagentStop adds
 * last_assistant_message and agent_transcript_path; Stop lists running
 * subagents in background_tasks).
 */

const SPEC = (extra = '') => `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt || { echo 'src/a.txt is not good' >&2; exit 1; }"]
    sources: ["src/**"]
${extra}`;

const SESSION = 'b1ecb496-69e3-4e36-a4b0-bd77eb7d306b';

function base(rig: Rig) {
  return { session_id: SESSION, transcript_path: rig.path('../transcript.jsonl'), cwd: rig.root, prompt_id: 'af131657-5171-461f-aa80-da51785f6122' };
}

const hook = (rig: Rig, event: string, payload: Record<string, unknown>) =>
  rig.run(['hook', 'claude-code', event], { stdin: JSON.stringify({ ...base(rig), hook_event_name: event, ...payload }) });

const start = (rig: Rig, agent: string) => hook(rig, 'SubagentStart', { agent_id: agent, agent_type: 'general-purpose' });

const subStop = (rig: Rig, agent: string, message: string | undefined, extra: Record<string, unknown> = {}) =>
  hook(rig, 'SubagentStop', {
    permission_mode: 'default',
    agent_id: agent,
    agent_type: 'general-purpose',
    effort: { level: 'medium' },
    stop_hook_active: false,
    agent_transcript_path: rig.path(`../agent-${agent}.jsonl`),
    ...(message !== undefined && { last_assistant_message: message }),
    background_tasks: [{ id: agent, type: 'subagent', status: 'running', description: 'do sub', agent_type: 'general-purpose' }],
    session_crons: [],
    ...extra,
  });

const mainStop = (rig: Rig, running: string[] = []) =>
  hook(rig, 'Stop', {
    permission_mode: 'default',
    stop_hook_active: false,
    last_assistant_message: 'All done.',
    background_tasks: running.map((id) => ({ id, type: 'subagent', status: 'running', description: 'x', agent_type: 'general-purpose' })),
    session_crons: [],
  });

const wrote = (rig: Rig, agent: string | null, path: string, content: string) => {
  rig.write({ [path]: content });
  return hook(rig, 'PostToolUse', {
    tool_name: 'Write',
    tool_input: { file_path: rig.path(path), content },
    tool_response: { type: 'update' },
    tool_use_id: `t-${Math.random()}`,
    ...(agent && { agent_id: agent, agent_type: 'general-purpose' }),
  });
};

async function ready(extra = ''): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n' });
  await rig.spec(SPEC(extra));
  expect((await rig.run(['verify'])).code).toBe(0);
  return rig;
}

const board = async (rig: Rig) => (await rig.run(['fleet', '--json'])).json().dispatches as any[];
const reason = (result: { stdout: string }) => (result.stdout.trim() === '' ? null : (JSON.parse(result.stdout).reason ?? null)) as string | null;
const blocked = (result: { code: number | null; stdout: string }) => {
  expect(result.code).toBe(0);
  return result.stdout.trim() !== '' && JSON.parse(result.stdout).decision === 'block';
};

describe('SubagentStart: on the ledger before it works', () => {
  it('records the subagent as a dispatched lane with its spec pin, and says the prompt was not in the payload', async () => {
    const rig = await ready();
    const result = await start(rig, 'aa0cb91d51974b8ad');
    expect([result.code, result.stdout]).toEqual([0, '']);
    const [d] = await board(rig);
    expect(d).toMatchObject({
      state: 'dispatched',
      tier: 'lane',
      tier_source: 'inferred',
      verdict: 'ungraded',
      prompt: null,
      prompt_source: 'not_in_payload',
      session: SESSION,
      agent: { client: 'claude-code', id: 'aa0cb91d51974b8ad', type: 'general-purpose' },
    });
    expect(d.spec_sha256).toBe(
      createHash('sha256')
        .update(readFileSync(rig.path('vouch.yaml')))
        .digest('hex'),
    );
    expect(d.manifest.checks).toEqual([expect.objectContaining({ id: 'tests', block: true })]);
    expect(d.transitions[0]).toMatchObject({ from: null, to: 'dispatched', writer: { actor: 'hook', client: 'claude-code' } });
    // A second start for the same agent does not put it on record twice.
    await start(rig, 'aa0cb91d51974b8ad');
    expect(await board(rig)).toHaveLength(1);
  });

  it('a subagent that was launched, wrote nothing and died is still on the board, and holds nothing', async () => {
    const rig = await ready();
    await start(rig, 'ghost');
    // It never stops; the session's own Stop lists it as running and is not held by it.
    const stop = await mainStop(rig);
    expect(stop.stdout).toBe('');
    expect(stop.stderr).toMatch(/still running \(not holding the stop\): dispatch \S+ \(general-purpose ghost/);
    const open = (await rig.run(['fleet', '--open', '--json'])).json().dispatches;
    expect(open.map((d: any) => [d.agent.id, d.state, d.verdict])).toEqual([['ghost', 'dispatched', 'ungraded']]);
    const text = (await rig.run(['fleet'])).stdout;
    expect(text).toMatch(/dispatched\s+lane\s+\S+( ago| now)?.*ungraded/);
  });

  it('records nothing outside a workspace, and never blocks (SubagentStart cannot)', async () => {
    const rig = new Rig();
    expect(await start(rig, 'a1')).toMatchObject({ code: 0, stdout: '' });
  });
});

describe('SubagentStop: the per-subagent gate on its dispatch', () => {
  it('refuses a stop with no report, without recording a transition', async () => {
    const rig = await ready();
    await start(rig, 'a1');
    for (const message of [undefined, '', '   ']) {
      const result = await subStop(rig, 'a1', message);
      expect(blocked(result)).toBe(true);
      expect(reason(result)).toMatch(/you stopped with no final message, so you have not reported/);
    }
    const [d] = await board(rig);
    expect([d.state, d.transitions.length]).toEqual(['dispatched', 1]);
  });

  it('refuses on pin drift: vouch.yaml changed (and was allowed) while the subagent worked', async () => {
    const rig = await ready();
    await start(rig, 'a1');
    await rig.spec(SPEC('# edited mid-flight\n'));
    const result = await subStop(rig, 'a1', 'Done.');
    expect(blocked(result)).toBe(true);
    expect(reason(result)).toMatch(/vouch.yaml changed while you worked \(dispatch \S+ pinned vouch.yaml [0-9a-f]{12}, and it is [0-9a-f]{12} now\)/);
    const [d] = await board(rig);
    expect(d.state).toBe('dispatched');
    const gates = (await rig.run(['sessions', SESSION, '--json'])).json().sessions[0].decisions;
    expect(gates.at(-1)).toMatchObject({ event: 'SubagentStop', decision: 'block', reason: 'pin_drift' });
  });

  it('a false "done" is contradicted and held; the same dispatch reports again, is verified and closed', async () => {
    const rig = await ready();
    await start(rig, 'a1');
    await wrote(rig, 'a1', 'src/a.txt', 'bad\n');
    const first = await subStop(rig, 'a1', JSON.stringify({ summary: 'fixed a.txt', deliverables: [{ what: 'src/a.txt is good', evidence: 'believed' }] }));
    expect(blocked(first)).toBe(true);
    expect(reason(first)).toContain('tests: FAIL (exit_code)');
    let [d] = await board(rig);
    expect([d.state, d.verdict]).toEqual(['contradicted', 'contradicted']);
    expect(d.claim).toMatchObject({ via: 'hook', summary: 'fixed a.txt', deliverables: [{ what: 'src/a.txt is good', evidence: 'believed', how: null }] });
    expect(d.grade).toMatchObject({ outcome: 'contradicted', basis: 'own_writes', checks: [{ id: 'tests', status: 'FAIL', reason: 'exit_code' }] });

    await wrote(rig, 'a1', 'src/a.txt', 'good again\n');
    const second = await subStop(rig, 'a1', 'Fixed for real: grep finds good.', { stop_hook_active: true });
    expect(second.stdout).toBe('');
    [d] = await board(rig);
    expect([d.state, d.verdict]).toEqual(['terminated', 'verified']);
    expect(d.transitions.map((t: any) => `${t.from ?? '·'}>${t.to}`)).toEqual([
      '·>dispatched',
      'dispatched>reported',
      'reported>contradicted',
      'contradicted>reported',
      'reported>verified',
      'verified>terminated',
    ]);
    // Every transition names the process that wrote it; the claim names the client's process as the claimant.
    for (const t of d.transitions)
      expect(t.writer).toMatchObject({ actor: 'hook', client: 'claude-code', pid: expect.any(Number), ppid: expect.any(Number), host: expect.any(String) });
    expect(d.transitions[4].writer.pid).not.toBe(d.transitions[3].writer.ppid);
    // The session is not held by a closed dispatch.
    expect((await mainStop(rig)).stdout).toBe('');
  });

  it('a failure found on drift its trail did not see stays owed: the next stop with no change is contradicted again, not let go ungraded', async () => {
    const rig = await ready('gate: {max_blocks: 2}\n');
    await start(rig, 'a1');
    rig.write({ 'src/a.txt': 'bad\n' });
    const command = `python3 -c "open('src/a.txt', 'w').write('bad')"`;
    await hook(rig, 'PostToolUse', {
      tool_name: 'Bash',
      tool_input: { command },
      tool_response: { stdout: '' },
      tool_use_id: 't-py',
      agent_id: 'a1',
      agent_type: 'general-purpose',
    });
    expect(blocked(await subStop(rig, 'a1', 'Done.'))).toBe(true);
    const again = await subStop(rig, 'a1', 'Done, really.', { stop_hook_active: true });
    expect(blocked(again)).toBe(true);
    expect(reason(again)).toContain('tests: FAIL (exit_code)');
    const [d] = await board(rig);
    expect([d.state, d.verdict]).toEqual(['contradicted', 'contradicted']);
  });

  it('a subagent that wrote nothing is closed with its claim ungraded, never verified', async () => {
    const rig = await ready();
    await start(rig, 'reader');
    const result = await subStop(rig, 'reader', 'The function is in src/a.txt.');
    expect(result.stdout).toBe('');
    const [d] = await board(rig);
    expect([d.state, d.verdict, d.grade]).toEqual(['terminated', 'ungraded', null]);
    expect(d.transitions.at(-1).why).toMatch(/closed ungraded: the subagent wrote nothing/);
  });

  it('changes nothing at its tier can grade: no verdict, it stays reported, and the session may not stop on it', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n', 'docs/d.md': 'd\n' });
    await rig.spec(SPEC().replace('sources: ["src/**"]', 'sources: ["src/**"]\n    tier: bridge'));
    await start(rig, 'a1');
    await wrote(rig, 'a1', 'docs/d.md', 'rewritten\n');
    const stop = await subStop(rig, 'a1', 'Rewrote the docs.');
    expect(stop.stdout).toBe('');
    expect(stop.stderr).toMatch(/no verdict: dispatch \S+: no blocking check applies at tier lane; it stays reported, ungraded/);
    const [d] = await board(rig);
    expect([d.state, d.verdict]).toEqual(['reported', 'ungraded']);
    const held = await mainStop(rig);
    expect(blocked(held)).toBe(true);
    expect(reason(held)).toMatch(/dispatches this session ordered are half-closed/);
    expect(reason(held)).toContain(`dispatch ${d.id}: reported · verdict ungraded · tier lane`);
    expect(reason(held)).toMatch(/check its work yourself and close it with your reason \(.*dispatch close/);
    // Grading from the CLI cannot produce a verdict either; closing it with a reason lets the session stop.
    const graded = await rig.run(['dispatch', 'grade', d.id]);
    expect(graded.code).toBe(1);
    expect(graded.stderr).toContain('no verdict recorded');
    expect((await rig.run(['dispatch', 'close', d.id, '--reason', 'docs reviewed by the bridge'])).code).toBe(0);
    expect((await mainStop(rig)).stdout).toBe('');
    const closed = (await board(rig))[0];
    expect([closed.state, closed.verdict, closed.transitions.at(-1).why]).toEqual(['terminated', 'ungraded', 'docs reviewed by the bridge']);
  });

  it('with advisory checks only, a subagent that changed files is never verified nor closed: it stays reported, ungraded, and holds the session', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n' });
    await rig.spec(SPEC().replace('sources: ["src/**"]', 'sources: ["src/**"]\n    block: false'));
    await start(rig, 'a1');
    await wrote(rig, 'a1', 'src/a.txt', 'bad\n');
    const stop = await subStop(rig, 'a1', 'Fixed it.');
    expect(stop.stdout).toBe('');
    expect(stop.stderr).toContain('every check in vouch.yaml is advisory (block: false): nothing blocking grades these changes; it stays reported, ungraded');
    const [d] = await board(rig);
    expect([d.state, d.verdict, d.grade]).toEqual(['reported', 'ungraded', null]);
    const held = await mainStop(rig);
    expect(blocked(held)).toBe(true);
    expect(reason(held)).toContain('nothing blocking grades these changes');
  });

  it('a subagent with no SubagentStart record is put on the ledger at its stop, and graded', async () => {
    const rig = await ready();
    await wrote(rig, 'late', 'src/a.txt', 'bad\n');
    expect(blocked(await subStop(rig, 'late', 'Done.'))).toBe(true);
    const [d] = await board(rig);
    expect(d.transitions[0].why).toMatch(/no SubagentStart was recorded/);
    expect(d.state).toBe('contradicted');
  });

  it("records the spawn prompt from the client's transcript of the subagent, labelled as such", async () => {
    const rig = await ready();
    await start(rig, 'a1');
    writeFileSync(
      rig.path('../agent-a1.jsonl'),
      `${JSON.stringify({ parentUuid: null, isSidechain: true, agentId: 'a1', type: 'user', message: { role: 'user', content: 'SUBTASK: make <add> correct' } })}\n{"type":"attachment"}\n`,
    );
    await subStop(rig, 'a1', 'Looked; nothing to change.');
    const [d] = await board(rig);
    expect(d.prompt).toBeNull();
    expect(d.claim.transcript_prompt).toMatchObject({ text: 'SUBTASK: make <add> correct', truncated: false });
    expect((await rig.run(['fleet'])).stdout).toContain('SUBTASK: make <add> correct');
  });
});

describe("the session's own Stop and its dispatches", () => {
  it('is held while a dispatch it ordered is reported and never graded or closed; running ones are only listed', async () => {
    const rig = await ready();
    const ordered = (await rig.run(['dispatch', 'new', '--prompt', 'check the parser', '--session', SESSION, '--json'])).json();
    expect(ordered.tier).toBe('lane');
    const running = (await rig.run(['dispatch', 'new', '--prompt', 'still going', '--session', SESSION, '--json'])).json();
    const other = (await rig.run(['dispatch', 'new', '--prompt', 'another session', '--session', 'other', '--json'])).json();
    rig.write({ 'claim.json': JSON.stringify({ summary: 'parser checked', deliverables: [{ what: 'parser ok', evidence: 'executed', how: 'ran tests' }] }) });
    for (const id of [ordered.id, other.id]) expect((await rig.run(['dispatch', 'report', id, '--report', 'claim.json'])).code).toBe(0);

    const held = await mainStop(rig);
    expect(blocked(held)).toBe(true);
    const text = reason(held)!;
    expect(text).toContain(`dispatch ${ordered.id}: reported · verdict ungraded · tier lane · check the parser`);
    expect(text).toMatch(new RegExp(`grade it \\(.*dispatch grade ${ordered.id}\\)`));
    expect(text).toContain(`Still running (listed, not holding the stop): ${running.id} (dispatched, still going)`);
    // Another session's dispatch is not this session's business.
    expect(text).not.toContain(other.id);

    expect((await rig.run(['dispatch', 'grade', ordered.id])).code).toBe(0);
    const verified = await mainStop(rig);
    expect(blocked(verified)).toBe(true);
    expect(reason(verified)).toMatch(/verified · .*its claim checked out; close it/s);
    expect((await rig.run(['dispatch', 'close', ordered.id])).code).toBe(0);
    const free = await mainStop(rig);
    expect(free.stdout).toBe('');
    expect(free.stderr).toContain(`dispatch ${running.id} (still going)`);
    const gates = (await rig.run(['sessions', SESSION, '--json'])).json().sessions[0].decisions;
    expect(gates.map((g: any) => [g.reason, (g.dispatches ?? []).map((x: any) => (x.id === running.id ? `running:${x.running}` : x.state))])).toEqual([
      ['dispatches_unsettled', ['running:true', 'reported']],
      ['dispatches_unsettled', ['running:true', 'verified']],
      ['nothing_relevant', ['running:true']],
    ]);
  });

  it('a contradicted subagent the client says is still running (retrying) does not hold the session', async () => {
    const rig = await ready();
    await start(rig, 'a1');
    await wrote(rig, 'a1', 'src/a.txt', 'bad\n');
    expect(blocked(await subStop(rig, 'a1', 'Done.'))).toBe(true);
    // Not passing at the bridge either (its write is the session's): fix the file the subagent broke only at the tree level.
    rig.write({ 'src/a.txt': 'good\n' });
    expect((await rig.run(['verify'])).code).toBe(0);
    expect((await mainStop(rig, ['a1'])).stdout).toBe('');
    // Once its agent is gone, the contradicted dispatch holds the session.
    const held = await mainStop(rig, []);
    expect(blocked(held)).toBe(true);
    expect(reason(held)).toMatch(/contradicted · verdict contradicted .*its claim did not check out and its agent is gone/s);
  });
});

describe('signed workspaces', () => {
  it('signs every dispatch transition a hook writes; the audit accepts them and catches an edited one', async () => {
    const { signedWorkspace, audit } = await import('./helpers/signed.js');
    const rig = await signedWorkspace(new Rig(), 1);
    await start(rig, 'a1');
    await subStop(rig, 'a1', 'Nothing to do.');
    const { withLedgerDb } = await import('./helpers/ledger-db.js');
    const rows = withLedgerDb(
      rig,
      (db) => db.prepare("SELECT signature FROM chain WHERE kind = 'dispatch' ORDER BY seq").all() as { signature: string | null }[],
    );
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.every((r) => r.signature !== null)).toBe(true);
    expect((await audit(rig)).report.findings).toEqual([]);
    withLedgerDb(rig, (db) => db.prepare("UPDATE chain SET body = replace(body, 'Nothing to do.', 'Everything done.') WHERE kind = 'dispatch'").run());
    const after = await audit(rig);
    expect(after.report.findings).toEqual([expect.objectContaining({ kind: 'dispatch', code: 'body_altered' })]);
    expect((await board(rig))[0].verdict).toBe('damaged');
  });
});
