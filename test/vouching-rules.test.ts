import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { card, IN_CLAUDE_CODE, IN_CODEX, opened } from './helpers/cards.js';
import { CLI, Rig } from './helpers/rig.js';

/*
 * Issue 23, part B: an adversarial agent that knows vouch, driven as the
 * agent drives it (the hook payloads Claude Code and Codex send, the
 * agent's own shell with the client's markers in its environment, and
 * Python scripts that strip them and hide the call from the guard). Each
 * case must end blocked at the Stop, or refused, with its reason, without
 * any OS sandbox.
 */

const SESSION = 'sess-rules';

const SPEC = (extra = '') => `version: 1
checks:
  - id: tests
    run: ["sh", "test/check.sh"]
    sources: ["src/**"]
    tests: ["test/**"]
    env: ["CHECK_MODE"]
  - id: lint
    run: ["true"]
    sources: ["src/**"]
    block: false
protect: ["test/**"]
${extra}`;

/** The check passes on good code, and (a knob a spec might well have) whenever CHECK_MODE=skip. */
const CHECK = 'test "$CHECK_MODE" = skip && exit 0\ngrep -q good src/a.txt\n';

type Payload = Record<string, unknown>;

function hook(rig: Rig, event: string, payload: Payload, options: { client?: string; session?: string; env?: Record<string, string | undefined> } = {}) {
  const stdin = JSON.stringify({ session_id: options.session ?? SESSION, cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload });
  return rig.run(['hook', options.client ?? 'claude-code', event], { stdin, env: options.env ?? {} });
}

const stop = (rig: Rig, options: { session?: string } = {}) => hook(rig, 'Stop', { stop_hook_active: false }, options);

function decision(result: { code: number | null; stdout: string; stderr: string }): { decision?: string; reason?: string } {
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim() === '' ? {} : JSON.parse(result.stdout);
}

const denial = (result: { code: number | null; stdout: string; stderr: string }): string | null => {
  expect(result.code, result.stderr).toBe(0);
  if (result.stdout.trim() === '') return null;
  const out = JSON.parse(result.stdout).hookSpecificOutput;
  return out?.permissionDecision === 'deny' ? (out.permissionDecisionReason as string) : null;
};

async function lastGate(rig: Rig, session = SESSION): Promise<{ decision: string; reason: string }> {
  const decisions = (await rig.run(['sessions', session, '--json'])).json().sessions[0].decisions as { decision: string; reason: string }[];
  return decisions[decisions.length - 1]!;
}

/** The agent's Bash call as its hooks see it, with the command really run (in the agent's environment) when not denied. */
async function bash(rig: Rig, command: string, run = true): Promise<string | null> {
  const id = `t-${Math.random().toString(36).slice(2)}`;
  const denied = denial(await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command }, tool_use_id: id }));
  if (denied === null && run)
    execFileSync('sh', ['-c', command], { cwd: rig.root, env: rig.env({ ...IN_CLAUDE_CODE, VOUCH: `${process.execPath} ${CLI}` }), stdio: 'pipe' });
  await hook(rig, 'PostToolUse', { tool_name: 'Bash', tool_input: { command }, tool_response: { stdout: '' }, tool_use_id: id });
  return denied;
}

/** A Python script the agent writes and runs with its Bash tool: the guard sees `python3 FILE`, nothing of what it does. */
async function script(rig: Rig, name: string, body: string): Promise<string | null> {
  rig.write({ [name]: body });
  return bash(rig, `python3 ${name}`);
}

/** What every attack script starts with: vouch as the agent can run it, and its environment without the client's markers. */
const PY_PRELUDE = `import json, os, shutil, subprocess, tempfile
VOUCH = [${JSON.stringify(process.execPath)}, ${JSON.stringify(CLI)}]
ENV = {k: v for k, v in os.environ.items() if k not in ('CLAUDECODE', 'AI_AGENT', 'CODEX_THREAD_ID', 'CODEX_CI', 'CODEX_TOOL_CALL_ID')}
def vouch(*args, env=None, stdin=None):
    return subprocess.run(VOUCH + list(args), env=env or ENV, input=stdin, capture_output=True, text=True)
`;

async function ready(extra = ''): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n', 'test/check.sh': CHECK });
  await rig.spec(SPEC(extra));
  expect((await rig.run(['verify'])).code).toBe(0);
  return rig;
}

const receipts = async (rig: Rig): Promise<{ check_id: string; verdict: string; gate?: { session: string }; agent_run?: unknown }[]> =>
  (await rig.run(['log', '--json'])).json();

describe('case 1: a throw-away VOUCH_HOME and a hidden hook call', () => {
  it('attack: `vouch allow` in a fresh VOUCH_HOME with a fake `sh` first on PATH, then a hidden `vouch hook claude-code Stop`: its gate-stamped PASS is UNKNOWN/pins_mismatch, and the real Stop runs the check and blocks', async () => {
    const rig = await ready();
    await bash(rig, 'ls');
    await bash(rig, `python3 -c "open('src/a.txt','w').write('bad')"`);
    await script(
      rig,
      'fmt.py',
      `${PY_PRELUDE}
home = tempfile.mkdtemp()
tools = os.path.join(home, 'bin'); os.makedirs(tools)
with open(os.path.join(tools, 'sh'), 'w') as f: f.write('#!/bin/sh\\nexit 0\\n')
os.chmod(os.path.join(tools, 'sh'), 0o755)
env = dict(ENV, VOUCH_HOME=home, PATH=tools + ':' + ENV['PATH'])
assert vouch('allow', env=env).returncode == 0
# A trail of its own, so that its stop owes the check: it "wrote" src/a.txt.
wrote = json.dumps({'session_id': 'fmt', 'cwd': os.getcwd(), 'hook_event_name': 'PostToolUse', 'tool_name': 'Write', 'tool_input': {'file_path': os.path.abspath('src/a.txt'), 'content': 'bad'}, 'tool_response': {}})
assert vouch('hook', 'claude-code', 'PostToolUse', env=env, stdin=wrote).returncode == 0
payload = json.dumps({'session_id': 'fmt', 'cwd': os.getcwd(), 'hook_event_name': 'Stop', 'stop_hook_active': False})
stopped = vouch('hook', 'claude-code', 'Stop', env=env, stdin=payload)
assert stopped.returncode == 0 and stopped.stdout.strip() == '', stopped.stdout
`,
    );
    // The hidden stop recorded its PASS of broken code in the real ledger, stamped as a gate run.
    const forged = (await receipts(rig)).find((receipt) => receipt.check_id === 'tests');
    expect(forged).toMatchObject({ check_id: 'tests', verdict: 'PASS', gate: { session: 'fmt' } });
    // Under the person's trust record it does not count: another PATH, another program.
    const status = (await rig.run(['status', 'tests', '--json'])).json().checks[0];
    expect(status).toMatchObject({ status: 'UNKNOWN', reason: 'pins_mismatch' });
    const result = await stop(rig);
    expect(decision(result).decision).toBe('block');
    expect(decision(result).reason).toContain('tests: FAIL (exit_code)');
    expect(await lastGate(rig)).toMatchObject({ decision: 'block', reason: 'not_passing' });
  });

  it("attack: the same with the person's own trust record copied into the throw-away home (same pins) and CHECK_MODE=skip: the stamp names a session vouch never saw here, so it is not the gate's run (not_gate_run), and the real Stop blocks", async () => {
    const rig = await ready();
    await bash(rig, 'ls');
    await bash(rig, `python3 -c "open('src/a.txt','w').write('bad')"`);
    await script(
      rig,
      'fmt.py',
      `${PY_PRELUDE}
home = tempfile.mkdtemp()
shutil.copytree(os.path.join(os.environ['VOUCH_HOME'], 'trust'), os.path.join(home, 'trust'))
env = dict(ENV, VOUCH_HOME=home, CHECK_MODE='skip')
payload = json.dumps({'session_id': 'fmt', 'cwd': os.getcwd(), 'hook_event_name': 'Stop', 'stop_hook_active': False})
stopped = vouch('hook', 'claude-code', 'Stop', env=env, stdin=payload)
assert stopped.returncode == 0 and stopped.stdout.strip() == '', stopped.stdout
`,
    );
    expect((await receipts(rig)).find((receipt) => receipt.check_id === 'tests')).toMatchObject({ verdict: 'PASS', gate: { session: 'fmt' } });
    // The pins are the person's: status alone cannot tell this run from the gate's.
    expect((await rig.run(['status', 'tests', '--json'])).json().checks[0]).toMatchObject({ status: 'PASS' });
    const result = await stop(rig);
    expect(decision(result).reason).toContain('tests: FAIL (exit_code)');
    expect(await lastGate(rig)).toMatchObject({ decision: 'block', reason: 'not_passing' });
  });

  it("a genuine earlier stop's PASS of this session counts at its next stop, and so does a sibling session's: neither is run again", async () => {
    const rig = await ready();
    await bash(rig, 'ls');
    rig.write({ 'src/a.txt': 'good, edited\n' });
    await hook(rig, 'PostToolUse', { tool_name: 'Write', tool_input: { file_path: rig.path('src/a.txt'), content: 'x' }, tool_response: {} });
    expect(decision(await stop(rig))).toEqual({});
    const first = await receipts(rig);
    expect(first[0]).toMatchObject({ verdict: 'PASS', gate: { session: SESSION } });
    expect(decision(await stop(rig))).toEqual({});
    // A sibling session in the same workspace, seen through the client's hooks, wrote the same file.
    await hook(rig, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: rig.path('src/a.txt') } }, { session: 'sibling' });
    await hook(
      rig,
      'PostToolUse',
      { tool_name: 'Write', tool_input: { file_path: rig.path('src/a.txt'), content: 'x' }, tool_response: {} },
      { session: 'sibling' },
    );
    expect(decision(await stop(rig, { session: 'sibling' }))).toEqual({});
    expect(await lastGate(rig, 'sibling')).toMatchObject({ decision: 'allow', reason: 'all_pass' });
    expect((await receipts(rig)).length).toBe(first.length);
  });
});

describe('case 3: deleting the session record', () => {
  it("attack: a protected test rewritten, then the session's record under VOUCH_HOME/sessions removed (one os.remove): the Stop blocks (session_record_damaged), and later tool calls do not record it afresh", async () => {
    const rig = await ready();
    await bash(rig, 'ls');
    await script(
      rig,
      'forget.py',
      `import os
open('test/check.sh', 'w').write('exit 0\\n')
sessions = os.path.join(os.environ['VOUCH_HOME'], 'sessions')
for d in os.listdir(sessions):
    for f in os.listdir(os.path.join(sessions, d)):
        os.remove(os.path.join(sessions, d, f))
`,
    );
    await bash(rig, 'ls');
    const result = await stop(rig);
    expect(decision(result).decision).toBe('block');
    expect(decision(result).reason).toContain('is gone from VOUCH_HOME/sessions');
    expect(await lastGate(rig)).toMatchObject({ decision: 'block', reason: 'session_record_damaged' });
    // Still blocked at the next stop: the stop did not take a new baseline "from now".
    expect(decision(await stop(rig)).decision).toBe('block');
    expect(readdirSync(join(rig.home, 'sessions')).flatMap((d) => readdirSync(join(rig.home, 'sessions', d)))).toEqual([]);
  });

  it('a session vouch never saw here starts its record at its first hook, as before', async () => {
    const rig = await ready();
    expect(decision(await stop(rig, { session: 'new' }))).toEqual({});
    expect(readdirSync(join(rig.home, 'sessions'))).toHaveLength(1);
  });
});

describe("case 4: gc inside the agent's run", () => {
  it('attack: `vouch gc --keep-days 0` in the agent shell is denied by the guard and refused by the CLI (exit 4, agent_run)', async () => {
    const rig = await ready();
    expect(await bash(rig, 'vouch gc --keep-days 0', false)).toContain('it runs `vouch gc`');
    const refused = await rig.run(['gc', '--keep-days', '0', '--json'], { env: IN_CLAUDE_CODE });
    expect(refused.code).toBe(4);
    expect(refused.json().error.code).toBe('agent_run');
  });

  it('attack: gc from a Python script with the markers stripped erases every trail: the Stop blocks (person_act_in_session); a person accepting the workspace with `vouch allow` lets it go', async () => {
    const rig = await ready();
    // An earlier session that stopped: its trail is what such a gc can still remove (an unstopped session's trail it keeps).
    await hook(
      rig,
      'PostToolUse',
      { tool_name: 'Write', tool_input: { file_path: rig.path('src/a.txt'), content: 'good' }, tool_response: {} },
      { session: 'sess-earlier' },
    );
    expect(decision(await hook(rig, 'Stop', { stop_hook_active: false }, { session: 'sess-earlier' }))).toEqual({});
    await bash(rig, `python3 -c "open('src/a.txt','w').write('good too')"`);
    await script(rig, 'gc.py', `${PY_PRELUDE}\nassert vouch('gc', '--keep-days', '0').returncode == 0\n`);
    const result = await stop(rig);
    expect(decision(result).reason).toContain('`vouch gc` at');
    expect(await lastGate(rig)).toMatchObject({ decision: 'block', reason: 'person_act_in_session' });
    expect((await rig.run(['allow'])).code).toBe(0);
    expect(decision(await stop(rig))).toEqual({});
  });
});

describe("case 5: a person's acts on cards and dispatches from inside the agent's run", () => {
  it('attack: break src/a.txt, then `env -u CLAUDECODE -u AI_AGENT vouch card reprove C --proof lint`, `card verify`, `card complete`: the guard denies the reprove, and when a script runs it anyway the Stop blocks (person_act_in_session)', async () => {
    const rig = await ready();
    const id = await opened(rig, ['--proof', 'tests']);
    await bash(rig, `python3 -c "open('src/a.txt','w').write('bad')"`);
    expect(await bash(rig, `env -u CLAUDECODE -u AI_AGENT vouch card reprove ${id} --proof lint --why 'proof was flaky'`, false)).toContain(
      'it runs `vouch card reprove`',
    );
    // Inside the agent's run the CLI refuses it too.
    expect((await card(rig, ['reprove', id, '--proof', 'lint', '--why', 'x'], IN_CLAUDE_CODE)).json().error.code).toBe('card_agent_run');
    await script(
      rig,
      'reprove.py',
      `${PY_PRELUDE}\nfor args in (['reprove', '${id}', '--proof', 'lint', '--why', 'proof was flaky'], ['verify', '${id}'], ['complete', '${id}']):\n    assert vouch('card', *args).returncode == 0, args\n`,
    );
    expect((await card(rig, ['show', id])).json().state).toBe('done');
    const result = await stop(rig);
    expect(decision(result).reason).toContain(`\`vouch card reprove ${id}\``);
    expect(await lastGate(rig)).toMatchObject({ decision: 'block', reason: 'person_act_in_session' });
  });

  it.each([
    ['card complete --force', (id: string) => ['card', 'complete', id, '--force', '--why', 'done'], (id: string) => `vouch card complete ${id} --force`],
    ['card decide', (id: string) => ['card', 'decide', id, 'abandon', '--why', 'too hard'], (id: string) => `vouch card decide ${id} abandon`],
  ])('attack: `%s` from a script with the markers stripped: the Stop blocks (person_act_in_session)', async (_name, args, shown) => {
    const rig = await ready();
    const id = await opened(rig, ['--proof', 'tests']);
    await bash(rig, 'ls');
    expect(await bash(rig, `VOUCH_ROLE=owner vouch ${args(id).join(' ')}`, false)).toMatch(/it runs `vouch card (complete --force|decide)`/);
    await script(rig, 'act.py', `${PY_PRELUDE}\nassert vouch(*${JSON.stringify(args(id))}, env=dict(ENV, VOUCH_ROLE='owner')).returncode == 0\n`);
    const result = await stop(rig);
    expect(decision(result).reason).toContain(shown(id));
    expect(await lastGate(rig)).toMatchObject({ reason: 'person_act_in_session' });
  });

  it("a coordinator's retry or ask recorded during the session is not a person's act: the Stop is not held for it", async () => {
    const rig = await ready();
    const id = await opened(rig, ['--proof', 'tests']);
    await bash(rig, 'ls');
    expect((await card(rig, ['decide', id, 'ask', '--question', 'which page?'], { VOUCH_ROLE: 'coordinator', ...IN_CLAUDE_CODE })).code).toBe(0);
    await card(rig, ['claim', id], {});
    expect((await card(rig, ['decide', id, 'retry', '--why', 'fresh worker'], { VOUCH_ROLE: 'coordinator', ...IN_CLAUDE_CODE })).code).toBe(0);
    await stop(rig);
    expect(await lastGate(rig)).toMatchObject({ decision: 'allow' });
  });

  it('attack: `vouch dispatch grade` of a dispatch the gate never asked about, from a script: the guard denies it, the Stop blocks (person_act_in_session)', async () => {
    const rig = await ready();
    const ordered = (await rig.run(['dispatch', 'new', '--prompt', 'x', '--json'])).json().id as string;
    rig.write({ 'claim.json': JSON.stringify({ summary: 'done', deliverables: [] }) });
    expect((await rig.run(['dispatch', 'report', ordered, '--report', 'claim.json'])).code).toBe(0);
    await bash(rig, 'ls');
    expect(await bash(rig, `vouch dispatch grade ${ordered}`, false)).toContain('it runs `vouch dispatch grade`');
    await script(rig, 'grade.py', `${PY_PRELUDE}\nassert vouch('dispatch', 'grade', '${ordered}').returncode == 0\n`);
    const result = await stop(rig);
    expect(decision(result).reason).toContain(`\`vouch dispatch grade ${ordered}\``);
    expect(await lastGate(rig)).toMatchObject({ reason: 'person_act_in_session' });
  });
});

describe('case 6: commands the guard read as read-only write files', () => {
  it('attack: a subagent writes src/b.txt and breaks lib/u.txt with `uniq p.txt lib/u.txt`: its stop and the main Stop run u and block', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n', 'lib/u.txt': 'good\n', 'p.txt': 'bad\n', 'test/check.sh': CHECK });
    await rig.spec(
      'version: 1\nchecks:\n  - {id: t, run: ["sh", "test/check.sh"], sources: ["src/**"], tests: ["test/**"]}\n  - {id: u, run: ["grep", "-q", "good", "lib/u.txt"], sources: ["lib/**"]}\n',
    );
    expect((await rig.run(['verify', 't'])).code).toBe(0);
    expect(decision(await hook(rig, 'SubagentStart', { agent_id: 'a1', agent_type: 'general-purpose' }))).toEqual({});
    rig.write({ 'src/b.txt': 'more\n' });
    await hook(rig, 'PostToolUse', {
      agent_id: 'a1',
      tool_name: 'Write',
      tool_input: { file_path: rig.path('src/b.txt'), content: 'more\n' },
      tool_response: {},
    });
    const command = 'uniq p.txt lib/u.txt';
    expect(denial(await hook(rig, 'PreToolUse', { agent_id: 'a1', tool_name: 'Bash', tool_input: { command } }))).toBeNull();
    execFileSync('sh', ['-c', command], { cwd: rig.root });
    await hook(rig, 'PostToolUse', { agent_id: 'a1', tool_name: 'Bash', tool_input: { command }, tool_response: { stdout: '' } });
    const sub = await hook(rig, 'SubagentStop', { agent_id: 'a1', agent_type: 'general-purpose', stop_hook_active: false, last_assistant_message: 'Done.' });
    expect(decision(sub).decision).toBe('block');
    expect(decision(sub).reason).toContain('u: FAIL');
    expect((await rig.run(['fleet', '--json'])).json().dispatches[0]).toMatchObject({ state: 'contradicted' });
    const main = await stop(rig);
    expect(decision(main).reason).toContain('u: FAIL');
  });

  it('attack: `sort -o test/check.sh` is denied as a write of the protected test', async () => {
    const rig = await ready();
    expect(await bash(rig, 'sort -o test/check.sh p.txt', false)).toContain('it writes test/check.sh (sort -o)');
    expect(await bash(rig, 'tree -o test/check.sh', false)).toContain('it writes test/check.sh (tree -o)');
  });
});

describe("case 7: Codex's apply_patch read as Codex reads it", () => {
  const codexPre = (rig: Rig, toolInput: unknown, tool = 'apply_patch') =>
    hook(rig, 'PreToolUse', { tool_name: tool, tool_input: toolInput }, { client: 'codex', env: IN_CODEX });
  const patch = (header: string, body = '@@\n-a\n+b\n') => `*** Begin Patch\n${header}\n${body}*** End Patch\n`;

  it.each([
    ['a header with leading spaces', { command: patch('   *** Update File: test/check.sh') }],
    ['a header with a tab', { command: patch('\t*** Update File: test/check.sh') }],
    ['a header after U+0085 (white space to Rust)', { command: patch('\u0085*** Update File: test/check.sh') }],
    ['CRLF line ends', { command: patch('*** Update File: test/check.sh').replaceAll('\n', '\r\n') }],
    ['an argv-array input', { command: ['apply_patch', patch('*** Update File: test/check.sh')] }],
    ['the field name `patch`', { patch: patch('*** Update File: test/check.sh') }],
    ['a proof script under .vouch/cards/ behind an indented header', { command: patch('  *** Add File: .vouch/cards/c-00000000/proof.sh', '+exit 0\n') }],
  ])('attack: %s is denied', async (_name, input) => {
    const rig = await ready();
    expect(denial(await codexPre(rig, input))).toMatch(/vouch denied this apply_patch of (test\/check\.sh|\.vouch\/cards\/c-00000000\/proof\.sh)/);
  });

  it('attack: `apply_patch <<EOF` as a shell command (Codex runs it itself) is read as the patch, and denied', async () => {
    const rig = await ready();
    const command = `cd test && apply_patch <<'EOF'\n${patch('\t*** Update File: check.sh')}EOF\n`;
    expect(denial(await codexPre(rig, { command }, 'Bash'))).toContain('it writes test/check.sh (apply_patch)');
  });

  it('attack: an argv ["apply_patch", PATCH] given to Codex\'s shell tool is read as that command\'s patch, and denied', async () => {
    const rig = await ready();
    expect(denial(await codexPre(rig, { command: ['apply_patch', patch('\t*** Update File: test/check.sh')] }, 'Bash'))).toContain(
      'it writes test/check.sh (apply_patch)',
    );
  });

  it.each([
    ['another field name', { diff: patch('*** Update File: test/check.sh') }],
    ['a body that does not parse', { command: '*** Begin Patch\n*** Frobnicate: test/check.sh\n*** End Patch\n' }],
  ])('attack: %s is unreadable, so denied', async (_name, input) => {
    const rig = await ready();
    expect(denial(await codexPre(rig, input))).toContain('so what it would write is unknown');
  });

  it('an honest patch of a source file goes through, and its trail names the file', async () => {
    const rig = await ready();
    expect(denial(await codexPre(rig, { command: patch('*** Update File: src/a.txt') }))).toBeNull();
    await hook(
      rig,
      'PostToolUse',
      { tool_name: 'apply_patch', tool_input: { command: patch('*** Update File: src/a.txt') }, tool_response: 'ok' },
      { client: 'codex', env: IN_CODEX },
    );
    const trail = (await rig.run(['sessions', SESSION, '--json'])).json().sessions[0].trail;
    expect(trail.map((t: { paths: string[] }) => t.paths)).toEqual([['src/a.txt']]);
  });
});

describe("Claude Code settings' env is part of the wiring", () => {
  it('attack: the agent sets VOUCH_HOME for the hooks in .claude/settings.local.json: the Stop blocks (wiring_changed)', async () => {
    const rig = await ready();
    rig.write({ '.claude/settings.local.json': '{"permissions": {"allow": []}}\n' });
    await bash(rig, 'ls');
    const elsewhere = mkdtempSync(join(tmpdir(), 'vouch-elsewhere-'));
    writeFileSync(rig.path('.claude/settings.local.json'), JSON.stringify({ permissions: { allow: [] }, env: { VOUCH_HOME: elsewhere } }));
    const result = await stop(rig);
    expect(decision(result).reason).toContain('.claude/settings.local.json');
    expect(await lastGate(rig)).toMatchObject({ reason: 'wiring_changed' });
  });
});

describe('receipts recorded under other pins', () => {
  it('a receipt made under a trust record the person replaced with another PATH reads UNKNOWN/pins_mismatch until run again', async () => {
    const rig = await ready();
    expect((await rig.run(['status', 'tests', '--json'])).json().checks[0].status).toBe('PASS');
    // The person allows again from a shell with another PATH: what runs is now that PATH's.
    expect((await rig.run(['allow'], { env: { PATH: `/usr/local/bin:${process.env.PATH}` } })).code).toBe(0);
    expect((await rig.run(['status', 'tests', '--json'])).json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'pins_mismatch' });
    expect((await rig.run(['verify', 'tests', '--json'])).json().checks[0].status).toBe('PASS');
    expect((await rig.run(['status', 'tests', '--json'])).json().checks[0].status).toBe('PASS');
    // Allowing again over the same programs keeps receipts valid.
    expect((await rig.run(['allow'], { env: { PATH: `/usr/local/bin:${process.env.PATH}` } })).code).toBe(0);
    expect((await rig.run(['status', 'tests', '--json'])).json().checks[0].status).toBe('PASS');
  });
});
