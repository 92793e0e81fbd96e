import { execFileSync } from 'node:child_process';
import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * Issue 13: nothing vouches for itself. Each case is an attack an agent that
 * knows how vouch works can make with its own tools, driven as the agent
 * drives it: the hook payloads Claude Code sends (PreToolUse, PostToolUse,
 * Stop, SubagentStart) and the agent's own shell (vouch run with the
 * client's marker, CLAUDECODE=1, in its environment, or with it stripped).
 * Each must be held at the result: the stop blocked, the receipt not
 * counted, the card not closed, whatever the command that got there.
 */

const AGENT = { CLAUDECODE: '1' } as const;

const SPEC = (extra = '') => `version: 1
checks:
  - id: tests
    run: ["sh", "test/check.sh"]
    sources: ["src/**"]
    tests: ["test/**"]
protect: ["test/**"]
${extra}`;

interface Payload {
  readonly [key: string]: unknown;
}

const SESSION = 'sess-attack';

async function hook(rig: Rig, event: string, payload: Payload, env: Record<string, string> = {}) {
  const stdin = JSON.stringify({ session_id: SESSION, cwd: rig.root, transcript_path: '/dev/null', hook_event_name: event, ...payload });
  return rig.run(['hook', 'claude-code', event], { stdin, env });
}

/** The agent's Bash call as its hooks see it: PreToolUse before, PostToolUse after (the command itself is run by the test). */
async function bash(rig: Rig, command: string, act: () => unknown = () => undefined) {
  const pre = await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command }, tool_use_id: `t-${command.length}` });
  expect(pre.code).toBe(0);
  const denied = pre.stdout.trim() !== '' && JSON.parse(pre.stdout).hookSpecificOutput?.permissionDecision === 'deny';
  if (!denied) await act();
  await hook(rig, 'PostToolUse', { tool_name: 'Bash', tool_input: { command }, tool_response: { stdout: '' }, tool_use_id: `t-${command.length}` });
  return { denied };
}

const stop = (rig: Rig, extra: Payload = {}) => hook(rig, 'Stop', { stop_hook_active: false, ...extra });

function decision(result: { code: number | null; stdout: string; stderr: string }): { decision?: string; reason?: string } {
  expect(result.code, result.stderr).toBe(0);
  return result.stdout.trim() === '' ? {} : JSON.parse(result.stdout);
}

const blocked = (result: { code: number | null; stdout: string; stderr: string }) => decision(result).decision === 'block';

async function ready(extra = ''): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n', 'test/check.sh': 'grep -q good src/a.txt\n' });
  await rig.spec(SPEC(extra));
  expect((await rig.run(['verify'])).code).toBe(0);
  return rig;
}

const lastGate = async (rig: Rig) => {
  const sessions = (await rig.run(['sessions', SESSION, '--json'])).json().sessions;
  const decisions = sessions[0].decisions as { decision: string; reason: string }[];
  return decisions[decisions.length - 1]!;
};

describe("an agent's own evidence never lets it stop", () => {
  it("opaque write, then its own `vouch verify` FAIL, then stop: blocked (the FAIL keeps the check relevant), and the gate's own run decides", async () => {
    const rig = await ready();
    await bash(rig, `python3 -c "open('src/a.txt','w').write('bad')"`, () => rig.write({ 'src/a.txt': 'bad\n' }));
    // The agent verifies itself: the receipt matches the files now, so nothing "drifted".
    await bash(rig, 'vouch verify', async () => expect((await rig.run(['verify'], { env: AGENT })).code).toBe(1));
    const agentReceipt = (await rig.run(['log', '--json'])).json()[0];
    expect(agentReceipt).toMatchObject({ verdict: 'FAIL', agent_run: { agent: 'claude-code', marker: 'CLAUDECODE' } });
    const result = await stop(rig);
    expect(blocked(result)).toBe(true);
    expect(decision(result).reason).toContain('tests: FAIL (exit_code)');
    expect(await lastGate(rig)).toMatchObject({ decision: 'block', reason: 'not_passing' });
  });

  it('the same FAIL with no trail at all (hooks saw no tool call): a receipt recorded during the session still holds the stop', async () => {
    const rig = await ready();
    // The session's first hook: the gate knows from when it works here.
    await hook(rig, 'PreToolUse', { tool_name: 'Read', tool_input: { file_path: rig.path('src/a.txt') } });
    rig.write({ 'src/a.txt': 'bad\n' });
    expect((await rig.run(['verify'], { env: AGENT })).code).toBe(1);
    expect(blocked(await stop(rig))).toBe(true);
  });

  it('its own PASS of broken code, made with its own PATH (a fake sh that exits 0), is not what runs: the check runs on the allowed PATH and FAILs', async () => {
    const rig = await ready();
    rig.script('.tools/sh', 'exit 0');
    await bash(rig, `python3 -c "open('src/a.txt','w').write('bad')"`, () => rig.write({ 'src/a.txt': 'bad\n' }));
    const forged = await rig.run(['verify', '--json'], { env: { ...AGENT, PATH: `${rig.path('.tools')}:${process.env.PATH}` } });
    // The fake sh never ran: the check resolved sh on the PATH the person allowed with.
    expect(forged.json().checks[0]).toMatchObject({ status: 'FAIL' });
    const receipt = (await rig.run(['log', '--json'])).json()[0];
    expect(receipt.executable).not.toContain('.tools');
    expect(blocked(await stop(rig))).toBe(true);
  });

  it('its own PASS forged by instrumenting vouch (a NODE_OPTIONS preload that fakes every run) with the markers stripped: the gate runs the check itself', async () => {
    const rig = await ready();
    await bash(rig, `python3 -c "open('src/a.txt','w').write('bad')"`, () => rig.write({ 'src/a.txt': 'bad\n' }));
    // What an agent that knows vouch can do in its own shell: load code into vouch that makes every command `true`.
    rig.write({
      '.tools/fake.cjs': "const cp = require('node:child_process'); const spawn = cp.spawn; cp.spawn = (file, args, options) => spawn('true', [], options);\n",
    });
    const forged = await rig.run(['verify', '--json'], { env: { NODE_OPTIONS: `--require ${rig.path('.tools/fake.cjs')}` } });
    expect(forged.json().checks[0]).toMatchObject({ status: 'PASS' });
    // Nothing in the receipt gives it away: no markers were in its environment.
    expect((await rig.run(['log', '--json'])).json()[0].agent_run).toBeUndefined();
    const result = await stop(rig);
    expect(blocked(result)).toBe(true);
    expect(decision(result).reason).toContain('tests: FAIL (exit_code)');
    const log = (await rig.run(['log', '--json'])).json();
    expect(log[0]).toMatchObject({ verdict: 'FAIL', actor: 'hook', gate: { session: SESSION, client: 'claude-code', event: 'Stop' } });
  });

  it('a PASS the agent recorded itself on good files is run again by the gate before the stop goes through (an honest session is never blocked)', async () => {
    const rig = await ready();
    await hook(rig, 'PreToolUse', { tool_name: 'Write', tool_input: { file_path: rig.path('src/a.txt') } });
    rig.write({ 'src/a.txt': 'good, edited\n' });
    await hook(rig, 'PostToolUse', { tool_name: 'Write', tool_input: { file_path: rig.path('src/a.txt'), content: 'x' }, tool_response: {} });
    expect((await rig.run(['verify'], { env: AGENT })).code).toBe(0);
    const before = (await rig.run(['log', '--json'])).json().length;
    expect(decision(await stop(rig))).toEqual({});
    const log = (await rig.run(['log', '--json'])).json();
    expect(log.length).toBe(before + 1);
    expect(log[0]).toMatchObject({ verdict: 'PASS', gate: { session: SESSION } });
    expect(await lastGate(rig)).toMatchObject({ decision: 'allow', reason: 'all_pass' });
  });

  it("with on_stop: require, the gate runs nothing and an agent-made PASS reads UNKNOWN/not_gate_run; a person's run lets the stop go", async () => {
    const rig = await ready('gate: {on_stop: require}\n');
    await hook(rig, 'PreToolUse', { tool_name: 'Write', tool_input: {} });
    rig.write({ 'src/a.txt': 'good, edited\n' });
    await hook(rig, 'PostToolUse', { tool_name: 'Write', tool_input: { file_path: rig.path('src/a.txt'), content: 'x' }, tool_response: {} });
    expect((await rig.run(['verify'], { env: AGENT })).code).toBe(0);
    const held = await stop(rig);
    expect(blocked(held)).toBe(true);
    expect(decision(held).reason).toContain('tests: UNKNOWN (not_gate_run)');
    expect(decision(held).reason).toContain('A PASS recorded inside your own run does not count');
    expect((await rig.run(['verify'])).code).toBe(0);
    expect(decision(await stop(rig))).toEqual({});
  });

  it('through a subagent: it writes opaquely and verifies (FAIL), the agent closes the dispatch itself, and the main Stop is still blocked', async () => {
    const rig = await ready();
    expect((await hook(rig, 'SubagentStart', { agent_id: 'a1', agent_type: 'general-purpose' })).code).toBe(0);
    await bash(rig, `git apply fix.patch`, () => rig.write({ 'src/a.txt': 'bad\n' }));
    expect((await rig.run(['verify'], { env: AGENT })).code).toBe(1);
    const fleet = (await rig.run(['fleet', '--json'])).json();
    const id = fleet.dispatches[0].id as string;
    expect((await rig.run(['dispatch', 'close', id, '--reason', 'done'], { env: AGENT })).code).toBe(0);
    const result = await stop(rig);
    expect(blocked(result)).toBe(true);
    expect(decision(result).reason).toContain('tests: FAIL');
  });

  it('a subagent that writes opaquely and records its own FAIL is held at its own stop, and its dispatch contradicted', async () => {
    const rig = await ready();
    expect((await hook(rig, 'SubagentStart', { agent_id: 'a2', agent_type: 'general-purpose' })).code).toBe(0);
    const command = `python3 -c "open('src/a.txt','w').write('bad')"`;
    await hook(rig, 'PreToolUse', { agent_id: 'a2', tool_name: 'Bash', tool_input: { command } });
    rig.write({ 'src/a.txt': 'bad\n' });
    await hook(rig, 'PostToolUse', { agent_id: 'a2', tool_name: 'Bash', tool_input: { command }, tool_response: { stdout: '' } });
    expect((await rig.run(['verify'], { env: AGENT })).code).toBe(1);
    const result = await hook(rig, 'SubagentStop', {
      agent_id: 'a2',
      agent_type: 'general-purpose',
      stop_hook_active: false,
      last_assistant_message: 'Done, all tests pass.',
    });
    expect(blocked(result)).toBe(true);
    expect((await rig.run(['fleet', '--json'])).json().dispatches[0]).toMatchObject({ state: 'contradicted' });
  });

  it("`vouch dispatch grade` is the checker's act: refused inside an agent run (exit 4, agent_run)", async () => {
    const rig = await ready();
    const refused = await rig.run(['dispatch', 'grade', 'd-anything', '--json'], { env: AGENT });
    expect(refused.code).toBe(4);
    expect(refused.json().error.code).toBe('agent_run');
  });
});

describe("what runs is the person's choice", () => {
  it('a command that resolves to another file than the one allowed is UNKNOWN/executable_changed, and does not run', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'good\n', 'bin/check': '#!/bin/sh\ngrep -q good src/a.txt\n' });
    chmodSync(rig.path('bin/check'), 0o755);
    await rig.spec('version: 1\nchecks:\n  - {id: tests, run: ["bin/check"], sources: ["src/**"]}\n');
    expect((await rig.run(['verify'])).code).toBe(0);
    // The agent rewrites the program the check runs (it is outside the check's scope, so nothing goes STALE).
    rig.write({ 'src/a.txt': 'bad\n', 'bin/check': '#!/bin/sh\nexit 0\n' });
    const ran = await rig.run(['verify', '--json']);
    expect(ran.code).toBe(1);
    expect(ran.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'executable_changed' });
    expect(ran.json().checks[0].detail).toContain('is not the file that was allowed');
    // A person who accepts the new program allows again; it then runs (and here fails on the bad source... it exits 0: the person chose it).
    expect((await rig.run(['allow'])).code).toBe(0);
    expect((await rig.run(['verify', '--json'])).json().checks[0].status).toBe('PASS');
  });

  it('an .npmrc that appears (script-shell=/bin/true turns npm test into a no-op) makes the check UNKNOWN/tool_config_changed in status and verify, until allowed again', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'x\n', 'package.json': '{"name":"p","version":"1.0.0","scripts":{"test":"exit 1"}}\n' });
    await rig.spec('version: 1\nchecks:\n  - {id: tests, run: ["npm", "test"], sources: ["src/**", "package.json"]}\n');
    expect((await rig.run(['verify'])).code).toBe(1);
    rig.write({ '.npmrc': 'script-shell=/bin/true\n' });
    const status = (await rig.run(['status', '--json'])).json().checks[0];
    expect(status).toMatchObject({ status: 'UNKNOWN', reason: 'tool_config_changed' });
    expect(status.detail).toContain('.npmrc');
    const ran = await rig.run(['verify', '--json']);
    expect(ran.json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'tool_config_changed' });
    // Nothing ran: no PASS of npm's no-op was recorded.
    expect((await rig.run(['log', '--json'])).json().every((r: { verdict: string }) => r.verdict !== 'PASS')).toBe(true);
    // An .npmrc in HOME is pinned the same way.
    rmSync(rig.path('.npmrc'));
    // Back as allowed: it runs again (and fails, as the person's npm test does).
    expect((await rig.run(['verify', '--json'])).json().checks[0]).toMatchObject({ status: 'FAIL', reason: 'exit_code' });
    writeFileSync(join(rig.home, '.npmrc'), 'script-shell=/bin/true\n');
    expect((await rig.run(['status', '--json'])).json().checks[0]).toMatchObject({ status: 'UNKNOWN', reason: 'tool_config_changed' });
  });

  it('an .npmrc named in sources (never read: credential-shaped) is said to be so, with where it is proved instead, by checks and by verify', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'x\n', '.npmrc': 'script-shell=/bin/sh\n' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**", ".npmrc"]}\n');
    const checks = await rig.run(['checks', '--json']);
    expect(JSON.stringify(checks.json())).toContain('"credentials":[".npmrc"]');
    const text = await rig.run(['checks']);
    expect(text.stdout).toContain('names only credential-shaped files (.npmrc), which vouch never reads as scope');
    expect(text.stdout).toContain('pinned by hash at `vouch allow`');
    const ran = (await rig.run(['verify', '--json'])).json().checks[0];
    expect(ran).toMatchObject({ status: 'UNKNOWN', reason: 'scope_empty' });
    expect(ran.detail).toContain('.npmrc is credential-shaped, never read as scope');
  });

  it('tool_configs: in vouch.yaml pins more files (a name on the cwd chain, a ~/ path)', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'x\n' });
    await rig.spec('version: 1\ntool_configs: [".mocharc.yml", "~/.config/mytool.rc"]\nchecks:\n  - {id: tests, run: ["true"], sources: ["src/**"]}\n');
    expect((await rig.run(['verify'])).code).toBe(0);
    rig.write({ '.mocharc.yml': 'spec: []\n' });
    expect((await rig.run(['status', '--json'])).json().checks[0].reason).toBe('tool_config_changed');
    rmSync(rig.path('.mocharc.yml'));
    mkdirSync(join(rig.home, '.config'), { recursive: true });
    writeFileSync(join(rig.home, '.config/mytool.rc'), 'x');
    expect((await rig.run(['status', '--json'])).json().checks[0].reason).toBe('tool_config_changed');
    const bad = new Rig().write({
      'vouch.yaml': 'version: 1\ntool_configs: ["../x", "~/../../etc/passwd"]\nchecks:\n  - {id: t, run: ["true"], sources: ["**"], allow_missing: true}\n',
    });
    const refused = await bad.run(['checks', '--json']);
    expect(refused.code).toBe(2);
    expect(refused.json().error.code).toBe('spec_invalid');
  });

  it('a trust record written by an earlier vouch (no pins) runs nothing until allowed again', async () => {
    const rig = await ready();
    const trustDir = join(rig.home, 'trust');
    const [file] = execFileSync('ls', [trustDir], { encoding: 'utf8' }).trim().split('\n');
    const record = JSON.parse(readFileSync(join(trustDir, file!), 'utf8'));
    delete record.pins;
    writeFileSync(join(trustDir, file!), JSON.stringify(record));
    const status = (await rig.run(['status', '--json'])).json().checks[0];
    expect(status).toMatchObject({ status: 'UNKNOWN', reason: 'spec_not_allowed' });
    expect(status.detail).toContain('earlier vouch');
  });

  it('after `vouch deny`, status says denied, not "never allowed"', async () => {
    const rig = await ready();
    expect((await rig.run(['deny'])).code).toBe(0);
    const status = (await rig.run(['status', '--json'])).json().checks[0];
    expect(status.detail).toContain('denied');
    expect(status.detail).not.toContain('never');
    expect((await rig.run(['deny', '--json'])).json().was_allowed).toBe(false);
  });
});

describe("protected files and the gate's wiring are checked by result", () => {
  const rewrites: { readonly name: string; readonly attack: (rig: Rig) => void }[] = [
    {
      name: '`cd -P test && printf ... > check.sh` (a write the guard reads through a physical cd)',
      attack: (rig) => execFileSync('sh', ['-c', "cd -P test && printf 'exit 0' > check.sh"], { cwd: rig.root }),
    },
    {
      name: '`ln -s test tt && echo x > tt/check.sh` (a link made in the same command)',
      attack: (rig) => execFileSync('sh', ['-c', 'ln -s test tt && echo "exit 0" > tt/check.sh'], { cwd: rig.root }),
    },
    {
      name: 'a hard link to the protected file, edited through the file tool',
      attack: (rig) => {
        linkSync(rig.path('test/check.sh'), rig.path('innocent.sh'));
        writeFileSync(rig.path('innocent.sh'), 'exit 0\n', { flag: 'r+' });
      },
    },
    {
      name: 'a python one-liner (an opaque write)',
      attack: (rig) => execFileSync('python3', ['-c', "open('test/check.sh','w').write('exit 0')"], { cwd: rig.root }),
    },
  ];
  for (const { name, attack } of rewrites) {
    it(`rewriting a protected test via ${name}: the stop is blocked (protected_changed), whatever wrote it`, async () => {
      const rig = await ready();
      await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
      attack(rig);
      expect(rig.read('test/check.sh')).toContain('exit 0');
      const result = await stop(rig);
      expect(blocked(result)).toBe(true);
      expect(decision(result).reason).toContain('test/check.sh');
      expect(await lastGate(rig)).toMatchObject({ decision: 'block', reason: 'protected_changed' });
      // Restoring the file (or a person's `vouch allow`) ends it.
      writeFileSync(rig.path('test/check.sh'), 'grep -q good src/a.txt\n');
      expect(decision(await stop(rig))).toEqual({});
    });
  }

  it("git checkout of another branch that changes a protected test: blocked; a person's `vouch allow` accepts the files as they are", async () => {
    const rig = await ready();
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: rig.root,
        env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
      });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-qm', 'base');
    git('checkout', '-qb', 'easy');
    writeFileSync(rig.path('test/check.sh'), 'exit 0\n');
    git('commit', '-qam', 'easier');
    git('checkout', '-q', 'main');
    await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'git status' } });
    git('checkout', '-q', 'easy');
    const result = await stop(rig);
    expect(blocked(result)).toBe(true);
    expect(await lastGate(rig)).toMatchObject({ reason: 'protected_changed' });
    expect((await rig.run(['allow'])).code).toBe(0);
    expect(blocked(await stop(rig))).toBe(false);
  });

  it('the agent edits the hook settings (unhooking its own gate): the stop is blocked (wiring_changed)', async () => {
    const rig = await ready();
    expect((await rig.run(['install', 'claude-code'])).code).toBe(0);
    await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
    writeFileSync(rig.path('.claude/settings.json'), '{}\n');
    const result = await stop(rig);
    expect(blocked(result)).toBe(true);
    expect(decision(result).reason).toContain('.claude/settings.json');
    expect(await lastGate(rig)).toMatchObject({ reason: 'wiring_changed' });
  });

  it('a person\'s "always allow" written into .claude/settings.local.json mid-session does not hold the stop; hooks disabled there do', async () => {
    const rig = await ready();
    rig.write({ '.claude/settings.local.json': '{"permissions": {"allow": []}}\n' });
    await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
    rig.write({ '.claude/settings.local.json': '{"permissions": {"allow": ["Bash(npm test)"]}}\n' });
    expect(blocked(await stop(rig))).toBe(false);
    rig.write({ '.claude/settings.local.json': '{"permissions": {"allow": ["Bash(npm test)"]}, "disableAllHooks": true}\n' });
    expect(blocked(await stop(rig))).toBe(true);
    expect(await lastGate(rig)).toMatchObject({ reason: 'wiring_changed' });
  });

  it('the agent rewrites the trust record to allow its own edit of vouch.yaml: blocked (wiring_changed), not graded', async () => {
    const rig = await ready();
    await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
    rig.write({ 'vouch.yaml': SPEC().replace('protect: ["test/**"]', 'protect: []') });
    const sha = execFileSync('sha256sum', [rig.path('vouch.yaml')], { encoding: 'utf8' }).split(' ')[0]!;
    const trustDir = join(rig.home, 'trust');
    const [file] = execFileSync('ls', [trustDir], { encoding: 'utf8' }).trim().split('\n');
    const record = JSON.parse(readFileSync(join(trustDir, file!), 'utf8'));
    writeFileSync(join(trustDir, file!), JSON.stringify({ ...record, spec_sha256: sha }));
    expect((await rig.run(['status', '--json'])).json().checks[0].reason).not.toBe('spec_not_allowed');
    const result = await stop(rig);
    expect(blocked(result)).toBe(true);
    expect(await lastGate(rig)).toMatchObject({ reason: 'wiring_changed' });
  });

  it("the session's record under VOUCH_HOME replaced with garbage: blocked (session_record_damaged)", async () => {
    const rig = await ready();
    await hook(rig, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } });
    const sessions = join(rig.home, 'sessions');
    const [dir] = execFileSync('ls', [sessions], { encoding: 'utf8' }).trim().split('\n');
    const [file] = execFileSync('ls', [join(sessions, dir!)], { encoding: 'utf8' })
      .trim()
      .split('\n');
    writeFileSync(join(sessions, dir!, file!), 'not json');
    expect(blocked(await stop(rig))).toBe(true);
    expect(await lastGate(rig)).toMatchObject({ reason: 'session_record_damaged' });
  });
});

describe('a session vouch has gated keeps being gated', () => {
  const away: { readonly name: string; readonly cwd: (rig: Rig) => string }[] = [
    { name: '/tmp', cwd: () => '/tmp' },
    {
      name: 'a deleted subfolder',
      cwd: (rig) => {
        mkdirSync(rig.path('gone'));
        rmSync(rig.path('gone'), { recursive: true });
        return rig.path('gone');
      },
    },
    { name: 'a file', cwd: (rig) => rig.path('src/a.txt') },
  ];
  for (const { name, cwd } of away) {
    it(`a stop whose cwd is ${name} is judged in the workspace the session worked in`, async () => {
      const rig = await ready();
      await bash(rig, `python3 -c "open('src/a.txt','w').write('bad')"`, () => rig.write({ 'src/a.txt': 'bad\n' }));
      const result = await stop(rig, { cwd: cwd(rig) });
      expect(blocked(result)).toBe(true);
      expect(decision(result).reason).toContain('tests: FAIL');
    });
  }

  it('the agent deletes vouch.yaml and .vouch with an opaque write: the stop is blocked (spec_missing)', async () => {
    const rig = await ready();
    await bash(rig, "python3 -c \"import shutil,os; os.remove('vouch.yaml'); shutil.rmtree('.vouch')\"", () => {
      rmSync(rig.path('vouch.yaml'));
      rmSync(rig.path('.vouch'), { recursive: true });
    });
    const result = await stop(rig);
    expect(blocked(result)).toBe(true);
    expect(decision(result).reason).toContain('vouch.yaml is gone');
  });

  it('outside any workspace, a session vouch never saw stops freely (nothing was promised)', async () => {
    const rig = await ready();
    const result = await hook(rig, 'Stop', { session_id: 'another', cwd: '/tmp', stop_hook_active: false });
    expect(decision(result)).toEqual({});
  });
});

describe('task cards: an agent cannot close its own card with its own run', () => {
  it("a PASS of the proof recorded inside an agent run never completes the card (card_pass_self_made); a person's run does", async () => {
    const rig = await ready();
    const opened = await rig.run(['card', 'open', '--goal', 'g', '--artifact', 'src/a.txt', '--done-when', 'tests pass', '--proof', 'tests', '--json']);
    expect(opened.code, opened.stderr).toBe(0);
    const id = opened.json().id as string;
    expect((await rig.run(['card', 'verify', id], { env: AGENT })).code).toBe(0);
    const refused = await rig.run(['card', 'complete', id, '--json'], { env: AGENT });
    expect(refused.code).toBe(4);
    expect(refused.json().error.code).toBe('card_pass_self_made');
    // The owner completing it does not launder the agent's run either.
    expect((await rig.run(['card', 'complete', id, '--json'])).json().error.code).toBe('card_pass_self_made');
    expect((await rig.run(['card', 'verify', id])).code).toBe(0);
    expect((await rig.run(['card', 'complete', id], { env: AGENT })).code).toBe(0);
  });
});

describe('status shows where a PASS was made', () => {
  it('--json carries agent_run for a receipt recorded inside an agent run', async () => {
    const rig = await ready();
    expect((await rig.run(['verify'], { env: { AI_AGENT: 'hermes' } })).code).toBe(0);
    expect((await rig.run(['status', '--json'])).json().checks[0]).toMatchObject({ status: 'PASS', agent_run: { agent: 'hermes', marker: 'AI_AGENT' } });
  });
});
