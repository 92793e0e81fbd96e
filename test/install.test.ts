import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, Rig } from './helpers/rig.js';

const SPEC = 'version: 1\nchecks:\n  - {id: unit, run: ["sh", "-c", "grep -q ok src/a.txt"], sources: ["src/**"]}\n';

describe('vouch install / uninstall', () => {
  it('claude-code (project): writes hook commands with absolute node and entry paths and the VOUCH_HOME install ran under, twice is a no-op, uninstall restores the bytes', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'ok', '.claude/settings.json': '{\n  "model": "opus"\n}\n' });
    await rig.spec(SPEC);
    const first = await rig.run(['install', 'claude-code', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json()).toMatchObject({
      ok: true,
      target: 'claude-code',
      scope: 'project',
      sandbox: true,
      results: [
        { outcome: 'written', how: 'applied' },
        { outcome: 'written', how: 'applied' },
      ],
    });
    const settings = JSON.parse(rig.read('.claude/settings.json'));
    expect(settings.model).toBe('opus');
    expect(settings.hooks.Stop[0].hooks[0].command).toBe(`VOUCH_HOME=${rig.home} ${process.execPath} ${realpathSync(CLI)} hook claude-code Stop`);
    // The guard fails closed when vouch cannot even start (node gone, the entry moved), as the plugin's hooks.json says.
    const plugin = JSON.parse(readFileSync(new URL('../hooks/hooks.json', import.meta.url), 'utf8')).hooks;
    for (const event of ['Stop', 'SubagentStart', 'SubagentStop', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure']) {
      expect(settings.hooks[event][0].hooks[0].onFailure, event).toBe(plugin[event][0].hooks[0].onFailure);
    }
    // Every tool's end reaches vouch, failed or not (a card worker's budget counts them all); the guard, only the writing tools.
    expect(settings.hooks.PostToolUse[0].matcher).toBeUndefined();
    expect(settings.hooks.PostToolUseFailure[0].matcher).toBeUndefined();
    expect(settings.hooks.PostToolUseFailure[0].hooks[0].command).toContain('hook claude-code PostToolUseFailure');
    expect(settings.hooks.PreToolUse[0].matcher).toBe('Write|Edit|MultiEdit|NotebookEdit|Bash');
    expect(settings.hooks.PreToolUse[0].hooks[0]).toEqual({
      type: 'command',
      command: expect.stringContaining('hook claude-code PreToolUse'),
      timeout: 30,
      onFailure: 'block',
    });
    const again = await rig.run(['install', 'claude-code']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to do (already installed)');
    const removed = await rig.run(['uninstall', 'claude-code']);
    expect(removed.code).toBe(0);
    expect(rig.read('.claude/settings.json')).toBe('{\n  "model": "opus"\n}\n');
  });

  it('a VOUCH_HOME set at install is in the hook command: the hook, started without it, reads the trust records install saw', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'ok' });
    await rig.spec(SPEC);
    expect((await rig.run(['install', 'claude-code', '--no-sandbox'])).code).toBe(0);
    const command: string = JSON.parse(rig.read('.claude/settings.json')).hooks.Stop[0].hooks[0].command;
    expect(command.startsWith(`VOUCH_HOME=${rig.home} `)).toBe(true);
    // Claude Code starts the hook in its own environment: no VOUCH_HOME there. The spec is allowed only in the rig's.
    const stop = JSON.stringify({ session_id: 's', cwd: rig.root, hook_event_name: 'Stop', stop_hook_active: false, transcript_path: '/dev/null' });
    const ran = spawnSync('sh', ['-c', command], { cwd: rig.root, input: stop, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: rig.home } });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).toBe('');
    const without = spawnSync('sh', ['-c', command.replace(/^VOUCH_HOME=\S+ /, '')], {
      cwd: rig.root,
      input: stop,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: rig.home },
    });
    expect(JSON.parse(without.stdout).decision).toBe('block');
  });

  it('claude-code (project) in a workspace that depends on vouch: no path of this machine in the settings, and the hook runs from a clone at another path', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'ok' });
    // The project's own vouch in node_modules (not committed; this built vouch, through a shim as npm's cmd-shim makes one).
    rig.script('node_modules/.bin/vouch', `exec ${process.execPath} ${realpathSync(CLI)} "$@"`);
    const noHome = { VOUCH_HOME: undefined };
    rig.write({ 'vouch.yaml': SPEC });
    expect((await rig.run(['allow'], { env: noHome })).code).toBe(0);
    const installed = await rig.run(['install', 'claude-code', '--no-sandbox'], { env: noHome });
    expect(installed.code, installed.stderr).toBe(0);
    const text = rig.read('.claude/settings.json');
    for (const machinePath of [rig.root, rig.home, process.execPath, realpathSync(CLI), dirname(rig.root)]) expect(text).not.toContain(machinePath);
    const command: string = JSON.parse(text).hooks.PreToolUse[0].hooks[0].command;
    expect(command).toBe('"$CLAUDE_PROJECT_DIR"/node_modules/.bin/vouch hook claude-code PreToolUse');

    // A clone elsewhere (the links as they are): the same command runs the clone's vouch for the clone.
    const clone = join(dirname(rig.root), 'elsewhere', 'clone');
    cpSync(rig.root, clone, { recursive: true, verbatimSymlinks: true });
    const write = JSON.stringify({
      session_id: 's',
      cwd: clone,
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { file_path: join(clone, 'vouch.yaml'), content: 'x' },
      tool_use_id: 't',
    });
    const ran = spawnSync('sh', ['-c', command], {
      cwd: clone,
      input: write,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: rig.home, CLAUDE_PROJECT_DIR: clone },
    });
    expect(ran.status, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it("attack: the project's vouch the portable hooks run is read-only in the box, so the agent cannot swap the program that judges it", async () => {
    const rig = new Rig().write({ 'src/a.txt': 'ok' });
    rig.script('node_modules/.bin/vouch', `exec ${process.execPath} ${realpathSync(CLI)} "$@"`);
    await rig.spec(SPEC);
    const installed = await rig.run(['install', 'claude-code']);
    expect(installed.code, installed.stderr).toBe(0);
    const { sandbox, permissions } = JSON.parse(rig.read('.claude/settings.json'));
    expect(sandbox.filesystem.denyWrite).toEqual(expect.arrayContaining(['node_modules/.bin/vouch', 'node_modules/vouch']));
    expect(permissions.deny).toEqual(expect.arrayContaining(['Edit(node_modules/.bin/vouch)', 'Edit(node_modules/vouch/**)']));
  });

  it("claude-code: an earlier vouch's guard (no onFailure) is upgraded in place by install and removed by uninstall; an entry edited since is refused, never silently left", async () => {
    const rig = new Rig().write({ 'src/a.txt': 'ok', '.claude/settings.json': '{\n  "model": "opus"\n}\n' });
    await rig.spec(SPEC);
    expect((await rig.run(['install', 'claude-code'])).code).toBe(0);
    const current = rig.read('.claude/settings.json');
    const settings = JSON.parse(current);
    delete settings.hooks.PreToolUse[0].hooks[0].onFailure;
    const earlier = `${JSON.stringify(settings, null, 2)}\n`;
    // Upgrade: install again over what the earlier version wrote.
    rig.write({ '.claude/settings.json': earlier });
    const upgraded = await rig.run(['install', 'claude-code']);
    expect(upgraded.code, upgraded.stderr).toBe(0);
    expect(JSON.parse(rig.read('.claude/settings.json')).hooks.PreToolUse).toEqual([
      {
        matcher: 'Write|Edit|MultiEdit|NotebookEdit|Bash',
        hooks: [{ type: 'command', command: expect.stringContaining('hook claude-code PreToolUse'), timeout: 30, onFailure: 'block' }],
      },
    ]);
    // Uninstall of what the earlier version wrote removes it all.
    rig.write({ '.claude/settings.json': earlier });
    const removed = await rig.run(['uninstall', 'claude-code']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(rig.read('.claude/settings.json'))).toEqual({ model: 'opus' });
    // A vouch entry edited by hand (another timeout) is neither ours nor an earlier one: uninstall says so, exit 3.
    const edited = JSON.parse(current);
    edited.hooks.PreToolUse[0].hooks[0].timeout = 99;
    rig.write({ '.claude/settings.json': `${JSON.stringify(edited, null, 2)}\n` });
    const refused = await rig.run(['uninstall', 'claude-code']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('hooks.PreToolUse has a vouch entry that differs from the one vouch writes');
    expect(JSON.parse(rig.read('.claude/settings.json')).hooks.PreToolUse[0].hooks[0].timeout).toBe(99);
  });

  it('claude-code: upgrading an install an earlier vouch made, then uninstalling, gives back the original bytes', async () => {
    const original = '{\n  "model": "opus"\n}\n';
    const rig = new Rig().write({ 'src/a.txt': 'ok', '.claude/settings.json': original });
    await rig.spec(SPEC);
    // The hooks alone (the box has its own record, tested below).
    expect((await rig.run(['install', 'claude-code', '--no-sandbox'])).code).toBe(0);
    // Make it what the earlier vouch left: its entries (no onFailure) and its record of them.
    const settings = JSON.parse(rig.read('.claude/settings.json'));
    delete settings.hooks.PreToolUse[0].hooks[0].onFailure;
    const earlier = `${JSON.stringify(settings, null, 2)}\n`;
    rig.write({ '.claude/settings.json': earlier });
    const records = readdirSync(join(rig.home, 'installs')).filter((name) => name.endsWith('.json'));
    expect(records).toHaveLength(1);
    const recordPath = join(rig.home, 'installs', records[0]!);
    const record = JSON.parse(readFileSync(recordPath, 'utf8'));
    record.after_sha256 = createHash('sha256').update(earlier).digest('hex');
    writeFileSync(recordPath, JSON.stringify(record));
    expect((await rig.run(['install', 'claude-code', '--no-sandbox'])).code).toBe(0);
    expect(JSON.parse(rig.read('.claude/settings.json')).hooks.PreToolUse[0].hooks[0].onFailure).toBe('block');
    const removed = await rig.run(['uninstall', 'claude-code']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(rig.read('.claude/settings.json')).toBe(original);
  });

  it("claude-code turns on the box: Claude Code's sandbox, fail-closed, no escape hatch, what vouches read-only, the registries the project uses reachable", async () => {
    const rig = new Rig().write({ 'src/a.txt': 'ok', 'test/a.test.js': 't', 'package.json': '{}', '.claude/settings.json': '{\n  "model": "opus"\n}\n' });
    await rig.spec(`${SPEC}protect: ["test/**", "lib/*/fixture.txt"]\n`);
    execFileSync('git', ['init', '-q'], { cwd: rig.root });
    const first = await rig.run(['install', 'claude-code']);
    expect(first.code, first.stderr).toBe(0);
    const { sandbox, permissions } = JSON.parse(rig.read('.claude/settings.json'));
    expect(sandbox).toMatchObject({
      enabled: true,
      failIfUnavailable: true,
      allowUnsandboxedCommands: false,
      network: { allowedDomains: expect.arrayContaining(['registry.npmjs.org']) },
    });
    // A file teams commit: the workspace's paths relative to it (Claude Code resolves them against the workspace), VOUCH_HOME outside it absolute.
    const readOnly = ['.vouch', 'vouch.yaml', 'test', '.claude', '.codex', '.mcp.json', '.git/config', '.git/hooks'];
    expect(sandbox.filesystem.denyWrite).toEqual(expect.arrayContaining([...readOnly, rig.home]));
    expect(sandbox.filesystem.allowWrite).toContain('~/.npm');
    expect(permissions.deny).toEqual(expect.arrayContaining(['Edit(.vouch/**)', 'Edit(vouch.yaml)', 'Edit(test/**)', `Edit(/${rig.home}/**)`]));
    expect(rig.read('.claude/settings.json')).not.toContain(rig.root);
    // A glob with a wildcard mid-path is no path: said, not silently dropped.
    expect(first.stderr).toContain('protect: lib/*/fixture.txt is not read-only in the box');
    expect(first.stderr).toContain('network: only registry.npmjs.org');
    const again = await rig.run(['install', 'claude-code', '--json']);
    expect(again.json().results.map((r: { outcome: string }) => r.outcome)).toEqual(['unchanged', 'unchanged']);
    const removed = await rig.run(['uninstall', 'claude-code']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(rig.read('.claude/settings.json')).toBe('{\n  "model": "opus"\n}\n');
  });

  it('claude-code --no-sandbox installs the hooks alone and says what that gives up; uninstall leaves a sandbox vouch did not set alone', async () => {
    const mine = '{\n  "sandbox": {\n    "enabled": true\n  }\n}\n';
    const rig = new Rig().write({ 'src/a.txt': 'ok', '.claude/settings.json': mine });
    await rig.spec(SPEC);
    const result = await rig.run(['install', 'claude-code', '--no-sandbox']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("--no-sandbox: the agent's commands are not boxed");
    expect(result.stderr).toContain('gate.require_box: true');
    const settings = JSON.parse(rig.read('.claude/settings.json'));
    expect(settings.sandbox).toEqual({ enabled: true });
    expect(settings.hooks.Stop).toHaveLength(1);
    rig.write({ '.claude/settings.json': `${JSON.stringify({ ...settings, model: 'opus' }, null, 2)}\n` });
    const removed = await rig.run(['uninstall', 'claude-code']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(rig.read('.claude/settings.json'))).toEqual({ sandbox: { enabled: true }, model: 'opus' });
  });

  it('claude-code: a sandbox the user switched off is not overridden (exit 3, the manual steps), and without bubblewrap or socat nothing is written', async () => {
    const off = '{\n  "sandbox": {\n    "enabled": false\n  }\n}\n';
    const rig = new Rig().write({ 'src/a.txt': 'ok', '.claude/settings.json': off });
    await rig.spec(SPEC);
    const refused = await rig.run(['install', 'claude-code']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('sandbox.enabled already holds another value');
    expect(refused.stderr).toContain('set sandbox.enabled to true');
    expect(JSON.parse(rig.read('.claude/settings.json')).sandbox).toEqual({ enabled: false });

    // A PATH with node but neither bwrap nor socat: Claude Code would refuse to start, so install refuses first.
    const bin = join(rig.home, 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    const other = new Rig().write({ 'src/a.txt': 'ok' });
    await other.spec(SPEC);
    const missing = await other.run(['install', 'claude-code'], { env: { PATH: bin } });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('needs bubblewrap and socat on PATH');
    expect(missing.stderr).toContain('apt-get install bubblewrap socat');
    expect(missing.stderr).toContain('--no-sandbox');
    expect(existsSync(other.path('.claude'))).toBe(false);
  });

  it('claude-code --scope user edits $CLAUDE_CONFIG_DIR/settings.json and needs no workspace', async () => {
    const rig = new Rig();
    const config = join(rig.home, 'claude-config');
    const result = await rig.run(['install', 'claude-code', '--scope', 'user'], { env: { CLAUDE_CONFIG_DIR: config } });
    expect(result.code, result.stderr).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(join(config, 'settings.json'), 'utf8')).hooks)).toContain('Stop');
    // Relative sandbox paths in the user's settings name paths under the config dir (test/claude-box.test.ts): said, not left to be found out.
    expect(result.stderr).toContain("Claude Code resolves a relative sandbox path in the user's settings against its config directory");
    await rig.run(['uninstall', 'claude-code', '--scope', 'user'], { env: { CLAUDE_CONFIG_DIR: config } });
    expect(existsSync(join(config, 'settings.json'))).toBe(false);
  });

  it('refuses an invalid settings file with exit 3, the reason, the path and the manual steps, and writes nothing', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'ok', '.claude/settings.json': '{ "hooks": ' });
    await rig.spec(SPEC);
    const result = await rig.run(['install', 'claude-code']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('refused');
    expect(result.stderr).toContain('not valid JSON');
    expect(result.stderr).toContain(rig.path('.claude/settings.json'));
    expect(result.stderr).toContain('append to the list at hooks.Stop');
    expect(result.stderr).toContain('ask the person');
    expect(rig.read('.claude/settings.json')).toBe('{ "hooks": ');
  });

  it('codex: writes .codex/hooks.json with Bash|apply_patch matchers, and SubagentStart/SubagentStop with the timeouts of Stop', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'ok' });
    await rig.spec(SPEC);
    expect((await rig.run(['install', 'codex'])).code).toBe(0);
    const hooks = JSON.parse(rig.read('.codex/hooks.json')).hooks;
    expect(Object.keys(hooks)).toEqual(['Stop', 'SubagentStart', 'SubagentStop', 'PreToolUse', 'PostToolUse']);
    expect(hooks.PreToolUse[0].matcher).toBe('Bash|apply_patch');
    expect(hooks.Stop[0].hooks[0].command).toContain('hook codex Stop');
    expect(hooks.SubagentStop[0].hooks[0].command).toContain('hook codex SubagentStop');
    expect(hooks.SubagentStop[0].hooks[0].timeout).toBe(hooks.Stop[0].hooks[0].timeout);
    expect(hooks.SubagentStart[0].hooks[0].timeout).toBe(hooks.PreToolUse[0].hooks[0].timeout);
    expect((await rig.run(['uninstall', 'codex'])).code).toBe(0);
    expect(existsSync(rig.path('.codex'))).toBe(false);
  });

  /** A directory with a `codex` that only answers --version, put first on PATH. */
  function codexOnPath(rig: Rig, version: string): Record<string, string> {
    const bin = rig.path('../bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'codex'), `#!/bin/sh\necho "codex-cli ${version}"\n`, { mode: 0o755 });
    return { PATH: `${bin}:${process.env.PATH}` };
  }

  it('codex older than the first version with SubagentStop vouch has run: Stop only, and it says subagent work is judged at the root Stop; uninstall takes it back', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'ok' });
    await rig.spec(SPEC);
    const env = codexOnPath(rig, '0.150.0');
    const installed = await rig.run(['install', 'codex'], { env });
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stderr).toContain(
      'Codex 0.150.0: this Codex runs no SubagentStart or SubagentStop that vouch has checked: subagent work is judged at the root Stop',
    );
    expect(Object.keys(JSON.parse(rig.read('.codex/hooks.json')).hooks)).toEqual(['Stop', 'PreToolUse', 'PostToolUse']);
    expect((await rig.run(['install', 'codex', '--json'], { env })).json().notes).toContainEqual(expect.stringContaining('judged at the root Stop'));
    expect((await rig.run(['uninstall', 'codex'], { env })).code).toBe(0);
    expect(existsSync(rig.path('.codex'))).toBe(false);
    // The version vouch has run them with gets them, and says nothing of it.
    const current = await rig.run(['install', 'codex'], { env: codexOnPath(rig, '0.171.0') });
    expect(current.stderr).not.toContain('root Stop');
    expect(Object.keys(JSON.parse(rig.read('.codex/hooks.json')).hooks)).toContain('SubagentStop');
  });

  it('usage errors: unknown target, a scope the target does not take, no workspace for a project install', async () => {
    const rig = new Rig();
    expect((await rig.run(['install', 'cursor'])).code).toBe(2);
    expect((await rig.run(['install', 'git-hooks', '--scope', 'user'])).code).toBe(2);
    const noSpec = await rig.run(['install', 'claude-code']);
    expect(noSpec.code).toBe(2);
    expect(noSpec.stderr).toContain('no vouch.yaml');
  });
});

describe('vouch install git-hooks: a real git push', () => {
  const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...identity } });
  // git runs the hook with its own environment: the rig's VOUCH_HOME holds the trust record.
  const push = (rig: Rig) => {
    try {
      execFileSync('git', ['push', '-q', 'origin', 'HEAD:main'], {
        cwd: rig.root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, ...identity, ...rig.env() },
      });
      return { code: 0, stderr: '' };
    } catch (error) {
      return { code: (error as { status: number }).status, stderr: String((error as { stderr: unknown }).stderr) };
    }
  };

  it('refuses the push while a blocking check is not a fresh PASS, lets it through once it is, and uninstalls cleanly', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'ok' });
    const remote = join(dirname(rig.root), 'remote.git');
    mkdirSync(remote);
    git(remote, 'init', '-q', '--bare');
    git(rig.root, 'init', '-q');
    await rig.spec(SPEC);
    git(rig.root, 'add', '-A');
    git(rig.root, 'commit', '-qm', 'one');
    git(rig.root, 'remote', 'add', 'origin', remote);

    const installed = await rig.run(['install', 'git-hooks']);
    expect(installed.code, installed.stderr).toBe(0);
    const hook = rig.path('.git/hooks/pre-push');
    expect(statSync(hook).mode & 0o111).not.toBe(0);

    const noReceipt = push(rig);
    expect(noReceipt.code).not.toBe(0);
    expect(noReceipt.stderr).toContain('vouch: push refused');
    expect(noReceipt.stderr).toContain('no_receipt');

    expect((await rig.run(['verify'])).code).toBe(0);
    expect(push(rig).code).toBe(0);

    writeFileSync(rig.path('src/a.txt'), 'broken');
    git(rig.root, 'commit', '-qam', 'two');
    const stale = push(rig);
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toContain('STALE');

    expect((await rig.run(['uninstall', 'git-hooks'])).code).toBe(0);
    expect(existsSync(hook)).toBe(false);
    expect(push(rig).code).toBe(0);
  });

  it('refuses to replace an existing pre-push hook, and says which line to add', async () => {
    const rig = new Rig().write({ 'src/a.txt': 'ok' });
    git(rig.root, 'init', '-q');
    await rig.spec(SPEC);
    rig.script('.git/hooks/pre-push', 'npm test');
    const result = await rig.run(['install', 'git-hooks']);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('already taken');
    expect(result.stderr).toContain('hook git pre-push');
    expect(rig.read('.git/hooks/pre-push')).toBe('#!/bin/sh\nnpm test\n');
  });
});

describe('help', () => {
  it.each(['install', 'uninstall', 'hook', 'sessions'])('vouch %s --help says what it does and how it exits', async (command) => {
    const result = await new Rig().run([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^usage: vouch ${command}`));
  });
});
