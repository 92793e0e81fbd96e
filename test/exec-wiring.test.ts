import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLI, Rig } from './helpers/rig.js';

/**
 * `vouch install claude-code --no-sandbox --exec`: where Claude Code's own
 * sandbox is off, its PreToolUse hook rewrites each Bash call into
 * `vouch exec -- /bin/sh -c CMD` (hookSpecificOutput.updatedInput). Driven
 * through the real CLI with Claude Code's payloads; the rewritten command
 * is then run as Claude Code's Bash tool would run it.
 */
async function workspace(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.txt': 'a\n' });
  spawnSync('git', ['init', '-q', rig.root]);
  await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
  return rig;
}

function preToolUse(rig: Rig, command: string, args: string[] = ['--exec']) {
  const stdin = JSON.stringify({
    session_id: 's1',
    cwd: rig.root,
    transcript_path: '/dev/null',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command, description: 'run it' },
  });
  return rig.run(['hook', 'claude-code', 'PreToolUse', ...args], { stdin, env: { CLAUDECODE: '1' } });
}

describe('install claude-code --no-sandbox --exec', () => {
  it('wires the guard with --exec, says what it holds, and uninstall restores the original bytes', async () => {
    const rig = await workspace();
    const refused = await rig.run(['install', 'claude-code', '--exec']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--exec is for a client whose own sandbox is off');
    expect(existsSync(rig.path('.claude/settings.json'))).toBe(false);
    const installed = await rig.run(['install', 'claude-code', '--no-sandbox', '--exec']);
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toContain('rewritten into `vouch exec -- /bin/sh -c CMD`');
    const settings = JSON.parse(rig.read('.claude/settings.json'));
    const guard = settings.hooks.PreToolUse[0].hooks[0].command as string;
    expect(guard).toMatch(/ hook claude-code PreToolUse --exec$/);
    expect(settings.hooks.Stop[0].hooks[0].command).not.toContain('--exec');
    // Installed again without --exec: the same entry, switched back in place.
    expect((await rig.run(['install', 'claude-code', '--no-sandbox'])).code).toBe(0);
    const plain = JSON.parse(rig.read('.claude/settings.json'));
    expect(plain.hooks.PreToolUse).toHaveLength(1);
    expect(plain.hooks.PreToolUse[0].hooks[0].command).toMatch(/ hook claude-code PreToolUse$/);
    expect((await rig.run(['install', 'claude-code', '--no-sandbox', '--exec'])).code).toBe(0);
    const doctor = await rig.run(['doctor', '--json']);
    const line = doctor.json().lines.find((l: { area: string }) => l.area === 'claude-code (project)');
    expect(line.status, JSON.stringify(line)).toBe('ok');
    const removed = await rig.run(['uninstall', 'claude-code']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(existsSync(rig.path('.claude/settings.json'))).toBe(false);
  });

  it('the hook rewrites a Bash call into vouch exec, keeping the rest of its input; the rewritten command runs and is VERIFIED', async () => {
    const rig = await workspace();
    const reply = await preToolUse(rig, 'echo hi > src/out.txt && cat src/out.txt');
    expect(reply.code, reply.stderr).toBe(0);
    const answer = reply.json().hookSpecificOutput;
    expect(answer.hookEventName).toBe('PreToolUse');
    expect(answer.permissionDecision).toBeUndefined();
    expect(answer.updatedInput.description).toBe('run it');
    const rewritten = answer.updatedInput.command as string;
    expect(rewritten).toContain(`${CLI} exec -- /bin/sh -c `);
    // As Claude Code's Bash tool runs it: a shell line, in the workspace, inside the agent's run.
    const ran = spawnSync('/bin/bash', ['-c', rewritten], { cwd: rig.root, env: { ...rig.env(), CLAUDECODE: '1' }, encoding: 'utf8' });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toBe('hi\n');
    expect(ran.stderr).toMatch(/VERIFIED exit 0 · receipt/);
    expect(readFileSync(rig.path('src/out.txt'), 'utf8')).toBe('hi\n');
    // Seen again (already a vouch exec line): let through as it is, never wrapped twice.
    const again = await preToolUse(rig, rewritten);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
  });

  it('a write to what vouches is still denied by the guard, not rewritten; without --exec nothing is rewritten', async () => {
    const rig = await workspace();
    const denied = await preToolUse(rig, 'echo x > vouch.yaml');
    expect(denied.json().hookSpecificOutput.permissionDecision).toBe('deny');
    const plain = await preToolUse(rig, 'echo hi', []);
    expect(plain.stdout).toBe('');
  });

  it('attack: the rewritten call cannot write vouch.yaml through a script the line does not show', async () => {
    const rig = await workspace();
    rig.script('w.sh', 'echo pwned > vouch.yaml');
    const before = rig.read('vouch.yaml');
    const reply = await preToolUse(rig, './w.sh');
    const rewritten = reply.json().hookSpecificOutput.updatedInput.command as string;
    const ran = spawnSync('/bin/bash', ['-c', rewritten], { cwd: rig.root, env: { ...rig.env(), CLAUDECODE: '1' }, encoding: 'utf8' });
    expect(ran.status).not.toBe(0);
    expect(ran.stderr).toMatch(/Read-only file system/);
    expect(rig.read('vouch.yaml')).toBe(before);
  });
});
