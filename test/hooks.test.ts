import { mkdirSync, rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * `vouch hook claude-code|codex EVENT` driven through the built CLI with the
 * JSON payloads the clients send (fields as captured from Claude Code
 * 2.1.332), asserting on the protocol replies and on what the ledger keeps.
 */

const SPEC = (extra = '') => `version: 1
checks:
  - id: tests
    run: ["sh", "-c", "grep -q good src/a.txt || { echo 'src/a.txt is not good' >&2; exit 1; }"]
    sources: ["src/**"]
    tests: ["test/**"]
  - id: docs
    run: ["true"]
    sources: ["docs/**"]
    block: false
protect: ["test/**"]
${extra}`;

interface Payload {
  readonly [key: string]: unknown;
}

async function hook(rig: Rig, event: string | undefined, payload: Payload | string, client = 'claude-code', env: Record<string, string> = {}) {
  const stdin = typeof payload === 'string' ? payload : JSON.stringify({ session_id: 'sess-1', cwd: rig.root, transcript_path: '/dev/null', ...payload });
  return rig.run(['hook', client, ...(event ? [event] : [])], { stdin, env });
}

const stop = (rig: Rig, extra: Payload = {}, client = 'claude-code') =>
  hook(rig, 'Stop', { hook_event_name: 'Stop', stop_hook_active: false, ...extra }, client);
const wrote = (rig: Rig, path: string, extra: Payload = {}) =>
  hook(rig, 'PostToolUse', {
    hook_event_name: 'PostToolUse',
    tool_name: 'Write',
    tool_input: { file_path: rig.path(path), content: 'x' },
    tool_response: { type: 'update' },
    tool_use_id: 't1',
    duration_ms: 4,
    ...extra,
  });
const pre = (rig: Rig, tool_name: string, tool_input: Payload, client = 'claude-code') =>
  hook(rig, 'PreToolUse', { hook_event_name: 'PreToolUse', tool_name, tool_input, tool_use_id: 't2' }, client);

async function ready(extra = '', verify = true): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n', 'test/t.txt': 't\n', 'docs/d.md': 'd\n' });
  await rig.spec(SPEC(extra));
  if (verify) expect((await rig.run(['verify'])).code).toBe(0);
  return rig;
}

function isBlock(result: { code: number | null; stdout: string }) {
  expect(result.code).toBe(0);
  return result.stdout.trim() !== '' && JSON.parse(result.stdout).decision === 'block';
}

const gates = async (rig: Rig) => (await rig.run(['sessions', '--json'])).json().sessions.flatMap((s: { decisions: unknown[] }) => s.decisions);

describe('Stop: the gate', () => {
  it('allows silently when the session changed nothing a blocking check covers', async () => {
    const rig = await ready();
    const result = await stop(rig);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(0);
  });

  it('blocks a false "done": the session edited a source, the gate runs the check, and quotes its failure', async () => {
    const rig = await ready();
    rig.write({ 'src/a.txt': 'bad\n' });
    await wrote(rig, 'src/a.txt');
    const result = await stop(rig);
    expect(isBlock(result)).toBe(true);
    const reason = JSON.parse(result.stdout).reason as string;
    expect(reason).toContain('tests: FAIL (exit_code)');
    expect(reason).toContain('src/a.txt is not good');
    expect(reason).toMatch(/verify tests/);
    expect(reason).toContain('vouch_verify');
    // The advisory check that nothing touched is not quoted (the reason names vouch's own path, so match the check line).
    expect(reason).not.toMatch(/^\s*docs:/m);
    const log = (await rig.run(['log', '--json'])).json();
    expect(log[0]).toMatchObject({ check_id: 'tests', verdict: 'FAIL', actor: 'hook' });
  });

  it('allows once the fix makes the check PASS, and records both decisions', async () => {
    const rig = await ready();
    rig.write({ 'src/a.txt': 'bad\n' });
    await wrote(rig, 'src/a.txt');
    expect(isBlock(await stop(rig))).toBe(true);
    rig.write({ 'src/a.txt': 'good again\n' });
    await wrote(rig, 'src/a.txt');
    const result = await stop(rig, { stop_hook_active: true });
    expect(result.stdout).toBe('');
    expect((await gates(rig)).map((g: { decision: string; reason: string }) => [g.decision, g.reason])).toEqual([
      ['block', 'not_passing'],
      ['allow', 'all_pass'],
    ]);
  });

  it('blocks on drift it did not see written (a shell edit), and keeps blocking after its own FAIL receipt ended the drift, until the escape', async () => {
    const rig = await ready('gate: {max_blocks: 2}\n');
    // The trail sees a shell command, not the file it wrote.
    const command = `python3 -c "open('src/a.txt', 'w').write('bad')"`;
    rig.write({ 'src/a.txt': 'bad\n' });
    await hook(rig, 'PostToolUse', {
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command },
      tool_response: { stdout: '' },
      duration_ms: 9,
    });
    expect((await rig.run(['sessions', 'sess-1', '--json'])).json().sessions[0].trail[0]).toMatchObject({ paths: [], opaque_writes: true });
    expect(isBlock(await stop(rig))).toBe(true);
    // The gate ran the check: its FAIL receipt is fresh, so the tree no longer drifts from a receipt.
    expect((await rig.run(['status', 'tests', '--json'])).json().checks[0]).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
    // The attack: stop again with no change. The FAIL is still owed.
    const again = await stop(rig, { stop_hook_active: true });
    expect(isBlock(again)).toBe(true);
    expect(JSON.parse(again.stdout).reason).toContain('tests: FAIL (exit_code)');
    const escaped = await stop(rig, { stop_hook_active: true });
    expect(JSON.parse(escaped.stdout)).toEqual({ systemMessage: expect.stringContaining('ESCAPED') });
    expect((await gates(rig)).map((g: { decision: string }) => g.decision)).toEqual(['block', 'block', 'escaped']);
    // Once it is a fresh PASS, the session may stop.
    rig.write({ 'src/a.txt': 'good\n' });
    expect((await stop(rig)).stdout).toBe('');
  });

  it('a spec of advisory checks only does not let a session that changed files stop: tier_uncovered, never a silent allow', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n' });
    await rig.spec('version: 1\ngate: {max_blocks: 1}\nchecks:\n  - {id: lint, run: ["true"], sources: ["src/**"], block: false}\n');
    // Nothing changed: nothing to grade, the stop goes through.
    expect((await stop(rig)).stdout).toBe('');
    await wrote(rig, 'src/a.txt');
    const blocked = await stop(rig);
    expect(isBlock(blocked)).toBe(true);
    expect(JSON.parse(blocked.stdout).reason).toContain('every check in vouch.yaml is advisory (block: false): nothing blocking grades these changes');
    // Still counted towards the escape, loudly, like any other block.
    expect(JSON.parse((await stop(rig, { stop_hook_active: true })).stdout)).toEqual({ systemMessage: expect.stringContaining('ESCAPED') });
    expect((await gates(rig)).map((g: { decision: string; reason: string }) => `${g.decision}:${g.reason}`)).toEqual([
      'allow:no_blocking_checks',
      'block:tier_uncovered',
      'escaped:max_blocks',
    ]);
  });

  it('stop_hook_active never suppresses a real block', async () => {
    const rig = await ready();
    rig.write({ 'src/a.txt': 'bad\n' });
    await wrote(rig, 'src/a.txt');
    expect(isBlock(await stop(rig, { stop_hook_active: true }))).toBe(true);
  });

  it('gate.on_stop: require blocks without running anything and says exactly how to produce the receipt', async () => {
    const rig = await ready('gate: {on_stop: require}\n');
    rig.write({ 'src/a.txt': 'still good\n' });
    await wrote(rig, 'src/a.txt');
    const before = (await rig.run(['log', '--json'])).json().length;
    const result = await stop(rig);
    expect(isBlock(result)).toBe(true);
    const reason = JSON.parse(result.stdout).reason as string;
    expect(reason).toContain('tests: STALE (fingerprint_changed)');
    expect(reason).toMatch(/Ask a person to run, in their own terminal: .*-C .* verify tests/);
    expect(reason).toContain('vouch verify --remote URL tests');
    expect((await rig.run(['log', '--json'])).json().length).toBe(before);
    // Once a person produced the receipt (outside the agent: no markers), the stop goes through.
    expect((await rig.run(['verify', 'tests'])).code).toBe(0);
    expect((await stop(rig)).stdout).toBe('');
  });

  it('after gate.max_blocks blocks with no file change, lets the stop through as ESCAPED, loudly, and records it', async () => {
    const rig = await ready('gate: {max_blocks: 2}\n');
    rig.write({ 'src/a.txt': 'bad\n' });
    await wrote(rig, 'src/a.txt');
    expect(isBlock(await stop(rig))).toBe(true);
    expect(isBlock(await stop(rig, { stop_hook_active: true }))).toBe(true);
    const escaped = await stop(rig, { stop_hook_active: true });
    expect(escaped.code).toBe(0);
    expect(JSON.parse(escaped.stdout)).toEqual({ systemMessage: expect.stringContaining('ESCAPED') });
    expect(escaped.stderr).toMatch(/ESCAPED: this session stopped UNVERIFIED after 2 blocks/);
    expect(escaped.stderr).toContain('tests FAIL (exit_code)');
    const sessions = (await rig.run(['sessions', '--json'])).json().sessions;
    expect(sessions[0]).toMatchObject({ session: 'sess-1', escaped: true, last: 'escaped' });
    const text = (await rig.run(['sessions'])).stdout;
    expect(text).toContain('ESCAPED');
  });

  it('a file change resets the count of consecutive blocks', async () => {
    const rig = await ready('gate: {max_blocks: 1}\n');
    rig.write({ 'src/a.txt': 'bad\n' });
    await wrote(rig, 'src/a.txt');
    expect(isBlock(await stop(rig))).toBe(true);
    rig.write({ 'src/a.txt': 'worse\n' });
    await wrote(rig, 'src/a.txt');
    expect(isBlock(await stop(rig))).toBe(true);
  });

  it('blocks when vouch.yaml is removed after it gated this session (a deleted spec is not a pass)', async () => {
    const rig = await ready();
    await wrote(rig, 'src/a.txt');
    expect((await stop(rig)).stdout).toBe('');
    rmSync(rig.path('vouch.yaml'));
    const result = await stop(rig);
    expect(isBlock(result)).toBe(true);
    expect(JSON.parse(result.stdout).reason).toContain('vouch.yaml is gone');
    // Another session, never gated here, is not held by a spec it never had.
    expect((await stop(rig, { session_id: 'other' })).stdout).toBe('');
  });

  it('blocks when vouch.yaml is edited and not allowed again (spec_not_allowed), and when it is invalid', async () => {
    const rig = await ready();
    rig.write({ 'vouch.yaml': SPEC('# edited\n') });
    const notAllowed = await stop(rig);
    expect(isBlock(notAllowed)).toBe(true);
    expect(JSON.parse(notAllowed.stdout).reason).toContain('vouch.yaml changed since it was allowed');
    rig.write({ 'vouch.yaml': 'version: 1\nchecks: nope\n' });
    const invalid = await stop(rig);
    expect(isBlock(invalid)).toBe(true);
    expect(JSON.parse(invalid.stdout).reason).toContain('not a valid spec');
  });

  it('allows where there is no vouch.yaml and no record of the session, saying so on stderr', async () => {
    const rig = new Rig();
    const result = await stop(rig);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('nothing to gate');
  });

  it('a SubagentStop is held only for what that subagent wrote', async () => {
    const rig = await ready();
    rig.write({ 'src/a.txt': 'bad\n' });
    await wrote(rig, 'src/a.txt', { agent_id: 'agent-a' });
    const subStop = (agent: string) =>
      hook(rig, 'SubagentStop', {
        hook_event_name: 'SubagentStop',
        agent_id: agent,
        agent_type: 'general-purpose',
        stop_hook_active: false,
        last_assistant_message: 'Done.',
      });
    expect(isBlock(await subStop('agent-a'))).toBe(true);
    expect((await subStop('agent-b')).stdout).toBe('');
  });

  it('takes the event from hook_event_name when the command line omits it', async () => {
    const rig = await ready();
    rig.write({ 'src/a.txt': 'bad\n' });
    await wrote(rig, 'src/a.txt');
    expect(isBlock(await hook(rig, undefined, { hook_event_name: 'Stop' }))).toBe(true);
  });
});

describe('fail closed for Stop, open for PostToolUse', () => {
  it('a Stop with unreadable input blocks with the error', async () => {
    const rig = await ready();
    const result = await hook(rig, 'Stop', 'this is not json');
    expect(isBlock(result)).toBe(true);
    expect(JSON.parse(result.stdout).reason).toContain('the vouch hook failed');
    expect(result.stderr).toContain('hook error');
  });

  it('a Stop whose ledger cannot be used blocks (ledger_unusable)', async () => {
    const rig = await ready();
    rmSync(rig.path('.vouch/ledger.db'));
    mkdirSync(rig.path('.vouch/ledger.db'));
    const result = await stop(rig);
    expect(isBlock(result)).toBe(true);
    expect(JSON.parse(result.stdout).reason).toContain('cannot use its ledger');
  });

  it('a PostToolUse that cannot be recorded lets the call go (exit 0), saying why on stderr', async () => {
    const rig = await ready();
    rmSync(rig.path('.vouch/ledger.db'));
    mkdirSync(rig.path('.vouch/ledger.db'));
    const result = await wrote(rig, 'src/a.txt');
    expect([result.code, result.stdout]).toEqual([0, '']);
    expect(result.stderr).toContain('nothing recorded');
    expect((await hook(rig, 'PostToolUse', '{broken')).code).toBe(0);
  });

  it('a PreToolUse that cannot read its input denies the call', async () => {
    const rig = await ready();
    const result = await hook(rig, 'PreToolUse', '[]');
    expect(JSON.parse(result.stdout)).toMatchObject({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' } });
  });

  it('unknown events and clients: events pass untouched; an unknown client is a usage error', async () => {
    const rig = await ready();
    expect(await hook(rig, 'Notification', { hook_event_name: 'Notification' })).toMatchObject({ code: 0, stdout: '' });
    expect((await hook(rig, 'Stop', {}, 'cursor')).code).toBe(2);
  });
});

describe('PostToolUse: the untrusted trail', () => {
  it('records the call, labelled untrusted, with hashes and the paths it wrote; never as a receipt', async () => {
    const rig = await ready();
    const before = (await rig.run(['log', '--json'])).json().length;
    await wrote(rig, 'src/a.txt');
    await hook(rig, 'PostToolUse', {
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo hi > src/b.txt && npm test' },
      tool_response: { stdout: 'hi' },
      duration_ms: 12,
    });
    await hook(rig, 'SubagentStart', { hook_event_name: 'SubagentStart', agent_id: 'a1', agent_type: 'general-purpose' });
    const session = (await rig.run(['sessions', 'sess-1', '--json'])).json().sessions[0];
    expect(session.trail).toHaveLength(3);
    expect(session.trail[0]).toMatchObject({ untrusted: true, tool: 'Write', paths: ['src/a.txt'], opaque_writes: false, duration_ms: 4 });
    expect(session.trail[0].input_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(session.trail[1]).toMatchObject({ tool: 'Bash', paths: ['src/b.txt'], opaque_writes: true });
    expect(session.trail[2]).toMatchObject({ event: 'SubagentStart', agent_id: 'a1', tool: null });
    expect((await rig.run(['log', '--json'])).json().length).toBe(before);
  });

  it('records a failed call too (PostToolUseFailure), with the paths its input names: a command that wrote, then failed, still wrote; a Read adds nothing', async () => {
    const rig = await ready();
    await hook(rig, 'PostToolUseFailure', {
      hook_event_name: 'PostToolUseFailure',
      tool_name: 'Bash',
      tool_input: { command: 'echo bad > src/a.txt && false' },
      tool_use_id: 't3',
      error: 'Exit code 1',
    });
    await hook(rig, 'PostToolUse', { hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: rig.path('src/a.txt') }, tool_response: {} });
    const session = (await rig.run(['sessions', 'sess-1', '--json'])).json().sessions[0];
    expect(session.trail.map((t: { event: string; tool: string | null }) => `${t.event}/${t.tool}`)).toEqual(['PostToolUseFailure/Bash']);
    expect(session.trail[0]).toMatchObject({ untrusted: true, paths: ['src/a.txt'], opaque_writes: false, tool_use_id: 't3' });
  });

  it('records nothing outside a workspace', async () => {
    const rig = new Rig();
    const result = await wrote(rig, 'x.txt');
    expect([result.code, result.stdout, result.stderr]).toEqual([0, '', '']);
  });
});

describe('PreToolUse: the guard', () => {
  const denied = (result: { stdout: string }) => JSON.parse(result.stdout).hookSpecificOutput;

  it.each([
    ['Write vouch.yaml', 'Write', { file_path: 'vouch.yaml', content: '' }, "vouch.yaml is the operator's definition"],
    [
      'Edit a protected test by absolute path',
      'Edit',
      { file_path: '<root>/test/t.txt', old_string: 't', new_string: 'u' },
      'protected by vouch.yaml (protect: test/**)',
    ],
    ['MultiEdit the ledger', 'MultiEdit', { file_path: '.vouch/ledger.db', edits: [] }, '.vouch/ holds the receipts'],
    ['NotebookEdit under .vouch', 'NotebookEdit', { notebook_path: '.vouch/x.ipynb', new_source: '' }, '.vouch/'],
    ['a redirection into vouch.yaml', 'Bash', { command: 'echo "checks: []" > vouch.yaml' }, '(> redirection)'],
    ['sed -i on a protected test', 'Bash', { command: "sed -i 's/a/b/' test/t.txt" }, '(sed -i)'],
    ['rm -rf of the state directory', 'Bash', { command: 'rm -rf .vouch' }, '(rm)'],
    ['tee into the spec', 'Bash', { command: 'cat x | tee vouch.yaml' }, '(tee)'],
    ['cp over a protected test', 'Bash', { command: 'cp /tmp/x test/t.txt' }, '(cp)'],
    ['mv the spec away', 'Bash', { command: 'mv vouch.yaml vouch.bak' }, '(mv)'],
    ['git checkout of the spec', 'Bash', { command: 'git checkout HEAD -- vouch.yaml' }, '(git checkout)'],
    ['git restore of the tests directory', 'Bash', { command: 'git restore test' }, '(git restore)'],
    ['a cd then a relative write', 'Bash', { command: 'cd test && echo x >> t.txt' }, 'test/t.txt'],
    ['a write hidden in sh -c', 'Bash', { command: "sh -c 'echo x > vouch.yaml'" }, 'vouch.yaml'],
    ['a write inside $(...)', 'Bash', { command: 'echo $(rm vouch.yaml)' }, 'vouch.yaml'],
    ['a shell glob reaching the ledger', 'Bash', { command: 'rm .vouch/*' }, '.vouch/'],
    ['rm -rf of the whole workspace', 'Bash', { command: 'rm -rf ./' }, 'vouch denied'],
    ['a symlink leading to the spec', 'Write', { file_path: 'link-to-spec', content: '' }, "vouch.yaml is the operator's definition"],
    ['a write inside { ...; }', 'Bash', { command: '{ rm vouch.yaml; }' }, '(rm)'],
    ['a write after if ...; then', 'Bash', { command: 'if true; then rm vouch.yaml; fi' }, '(rm)'],
    ['a write after else', 'Bash', { command: 'if false; then :; else rm test/t.txt; fi' }, '(rm)'],
    ['a write after !', 'Bash', { command: '! rm vouch.yaml' }, '(rm)'],
    ['a write in a function body', 'Bash', { command: 'f() { rm vouch.yaml; }; f' }, '(rm)'],
    ['a write in a `function` body', 'Bash', { command: 'function f { rm -rf .vouch; }; f' }, '(rm)'],
    ['a write in a while loop', 'Bash', { command: 'while true; do rm vouch.yaml; done' }, '(rm)'],
    ['a write in an until loop', 'Bash', { command: 'until false; do echo x > vouch.yaml; done' }, '(> redirection)'],
    ['git clean without -x (untracked protected files go too)', 'Bash', { command: 'git clean -fd' }, '(git clean)'],
    ['git clean of the tests directory', 'Bash', { command: 'git clean -f -e "*.tmp" test' }, '(git clean)'],
    ['vouch allow: the agent allowing its own edit of the spec', 'Bash', { command: 'vouch allow' }, 'it runs `vouch allow`'],
    ['npx vouch allow', 'Bash', { command: 'npx -y vouch allow --json' }, 'it runs `vouch allow`'],
    ['node <anything>/cli.js allow', 'Bash', { command: 'node /opt/x/node_modules/vouch/dist/cli.js -C . allow' }, 'it runs `vouch allow`'],
    ['vouch allow with the agent markers stripped', 'Bash', { command: 'env -u CLAUDECODE -u AI_AGENT vouch allow' }, 'it runs `vouch allow`'],
    ['vouch allow after a cd, in a subshell', 'Bash', { command: 'cd src && (vouch allow)' }, 'it runs `vouch allow`'],
    ['vouch deny', 'Bash', { command: 'pnpm exec vouch deny' }, 'it runs `vouch deny`'],
    ['vouch init --write', 'Bash', { command: 'rm -f x; ./node_modules/.bin/vouch init --write' }, 'it runs `vouch init --write`'],
  ])('denies %s', async (_name, tool, input, words) => {
    const rig = await ready();
    rig.symlink(rig.path('vouch.yaml'), 'link-to-spec');
    const toolInput = JSON.parse(JSON.stringify(input).replace('<root>', rig.root));
    const answer = denied(await pre(rig, tool, toolInput));
    expect(answer).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
    expect(answer.permissionDecisionReason).toContain(words);
  });

  it.each([
    ['a source file', 'Write', { file_path: 'src/a.txt', content: 'x' }],
    ['a read of the spec', 'Bash', { command: 'cat vouch.yaml && grep -r x test' }],
    ['a redirection from the spec', 'Bash', { command: 'wc -l < vouch.yaml > /tmp/count' }],
    ['a file outside the workspace', 'Write', { file_path: '/tmp/elsewhere.txt', content: 'x' }],
    ['a quoted word that only mentions the spec', 'Bash', { command: 'echo "rm vouch.yaml"' }],
    ['a heredoc body that only mentions the spec', 'Bash', { command: 'cat > src/notes.txt <<EOF\nrm vouch.yaml\nEOF' }],
    ['a tool the guard does not know', 'Read', { file_path: 'vouch.yaml' }],
    ['a dry-run git clean', 'Bash', { command: 'git clean -nd' }],
    ['vouch commands that do not touch trust', 'Bash', { command: 'vouch verify && npx vouch status --json && vouch init && node dist/cli.js checks' }],
    ['a word that only mentions vouch allow', 'Bash', { command: 'echo "vouch allow" && grep -r "vouch allow" README.md' }],
  ])('allows %s (and says nothing)', async (_name, tool, input) => {
    const rig = await ready();
    const result = await pre(rig, tool, input);
    expect([result.code, result.stdout]).toEqual([0, '']);
  });

  it('protects vouch.yaml and .vouch/ even when vouch.yaml is invalid, and keeps protect: read as written', async () => {
    const rig = await ready();
    rig.write({ 'vouch.yaml': 'version: 1\nprotect: ["test/**"]\nchecks: broken\n' });
    expect(denied(await pre(rig, 'Write', { file_path: 'test/t.txt', content: '' })).permissionDecision).toBe('deny');
    expect(denied(await pre(rig, 'Write', { file_path: 'vouch.yaml', content: '' })).permissionDecision).toBe('deny');
  });

  it('Codex: denies an apply_patch that updates the spec, and a Bash write, in the same protocol', async () => {
    const rig = await ready();
    const patch = '*** Begin Patch\n*** Update File: vouch.yaml\n@@\n-version: 1\n+version: 2\n*** End Patch\n';
    expect(denied(await pre(rig, 'apply_patch', { command: patch }, 'codex')).permissionDecision).toBe('deny');
    expect(denied(await pre(rig, 'Bash', { command: 'echo > test/t.txt' }, 'codex')).permissionDecision).toBe('deny');
    expect((await pre(rig, 'apply_patch', { command: '*** Begin Patch\n*** Add File: src/new.txt\n+x\n*** End Patch\n' }, 'codex')).stdout).toBe('');
  });
});

describe('git pre-push', () => {
  it('refuses a push while a blocking check is not a fresh PASS, and allows it once it is', async () => {
    const rig = await ready();
    rig.write({ 'src/a.txt': 'bad\n' });
    const refused = await rig.run(['hook', 'git', 'pre-push']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('push refused');
    expect(refused.stderr).toContain('STALE');
    rig.write({ 'src/a.txt': 'good\n' });
    const allowed = await rig.run(['hook', 'git', 'pre-push']);
    expect(allowed.code).toBe(0);
  });

  it('refuses a push when there is no spec to grade it', async () => {
    const rig = new Rig();
    const result = await rig.run(['hook', 'git', 'pre-push']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no vouch.yaml');
  });
});

describe('the gate and the audit', () => {
  it.each([
    ['signing_key', ''],
    ['require_signature: true', 'require_signature: true\n'],
  ])('a signing workspace (%s) signs gate decisions and leaves the untrusted trail unsigned; audit accepts both', async (_name, extra) => {
    const { signedWorkspace, audit, SIGNED_SPEC } = await import('./helpers/signed.js');
    const rig = await signedWorkspace(new Rig(), 1, SIGNED_SPEC.replace('signing_key: default\n', `signing_key: default\n${extra}`));
    rig.write({ 'src/a.ts': 'edited' });
    expect((await wrote(rig, 'src/a.ts')).code).toBe(0);
    const blocked = await stop(rig);
    expect(blocked.code).toBe(0);
    const { withLedgerDb } = await import('./helpers/ledger-db.js');
    const rows = withLedgerDb(
      rig,
      (db) =>
        db.prepare("SELECT kind, signature FROM chain WHERE kind IN ('trail', 'gate') ORDER BY seq").all() as { kind: string; signature: string | null }[],
    );
    expect(rows.map((r) => `${r.kind}:${r.signature === null ? 'unsigned' : 'signed'}`)).toEqual(['trail:unsigned', 'gate:signed']);
    const result = await audit(rig);
    expect(result.report.findings).toEqual([]);
    expect(result.code).toBe(0);
  });
});
