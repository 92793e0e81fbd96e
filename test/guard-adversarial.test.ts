import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig, type RunResult } from './helpers/rig.js';

/*
 * The agent under the gate trying to remove, blind or route around the
 * gate's wiring, or to write what proves its work by a way the guard used to
 * miss. Each case is a real Claude Code PreToolUse payload through `vouch
 * hook claude-code PreToolUse` (the built CLI, a real process), or a vouch
 * command run with the agent's markers (CLAUDECODE=1), in a real git
 * repository. Named for the attack.
 */

const SPEC = `version: 1
checks:
  - id: tests
    run: ["sh", "test/check.sh"]
    sources: ["src/**"]
    tests: ["test/**"]
protect: ["test/**"]
`;

const IN_CLAUDE_CODE = { CLAUDECODE: '1' };

interface Setup {
  readonly rig: Rig;
  /** The user's home for the hook (HOME), apart from VOUCH_HOME so that each is seen on its own. */
  readonly user: string;
  readonly git: (...args: string[]) => string;
}

/** A workspace in a git repository with one commit, an allowed spec, a protected test, and a user home of its own. */
async function ready(): Promise<Setup> {
  const rig = new Rig().write({ 'src/a.txt': 'good\n', 'test/check.sh': 'grep -q good src/a.txt\n', '.gitignore': '.vouch/\n' });
  await rig.spec(SPEC);
  const user = join(dirname(rig.root), 'user');
  mkdirSync(user);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], {
      cwd: rig.root,
      env: { PATH: process.env.PATH, HOME: user },
      encoding: 'utf8',
    });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'start');
  return { rig, user, git };
}

function pre(
  setup: Setup,
  tool_name: string,
  tool_input: Record<string, unknown>,
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<RunResult> {
  const stdin = JSON.stringify({
    session_id: 's-adv',
    cwd: options.cwd ?? setup.rig.root,
    transcript_path: '/dev/null',
    hook_event_name: 'PreToolUse',
    tool_name,
    tool_input,
    tool_use_id: 't1',
  });
  return setup.rig.run(['hook', 'claude-code', 'PreToolUse'], {
    stdin,
    env: { HOME: setup.user, ...IN_CLAUDE_CODE, ...options.env },
    ...(options.cwd && { cwd: options.cwd }),
  });
}

/** The deny reason, or null when the guard said nothing (the call goes ahead). */
function denial(result: RunResult): string | null {
  expect(result.code, result.stderr).toBe(0);
  if (result.stdout.trim() === '') return null;
  const answer = JSON.parse(result.stdout).hookSpecificOutput;
  expect(answer).toMatchObject({ hookEventName: 'PreToolUse', permissionDecision: 'deny' });
  return answer.permissionDecisionReason as string;
}

const bash = (setup: Setup, command: string, options: { cwd?: string; env?: Record<string, string> } = {}) => pre(setup, 'Bash', { command }, options);

describe("the agent cannot write its gate's wiring", () => {
  it.each([
    ["Write .claude/settings.json (removing the project's hooks)", 'Write', '.claude/settings.json', "Claude Code's project settings"],
    ['Edit .claude/settings.local.json (disableAllHooks)', 'Edit', '.claude/settings.local.json', "Claude Code's local project settings"],
    ["Write .codex/hooks.json (Codex's project hooks)", 'Write', '.codex/hooks.json', "Codex's project hooks"],
    ["Write .mcp.json (vouch's MCP entry)", 'Write', '.mcp.json', "Claude Code's MCP servers"],
    ['Write .cursor/mcp.json', 'Write', '.cursor/mcp.json', "Cursor's MCP servers"],
    ['Write .git/hooks/pre-push (the push gate)', 'Write', '.git/hooks/pre-push', "git's pre-push hook"],
  ])('denies %s', async (_name, tool, path, words) => {
    const setup = await ready();
    const reason = denial(await pre(setup, tool, { file_path: setup.rig.path(path), content: '{}' }));
    expect(reason).toContain(words);
    expect(reason).toContain("vouch's own wiring");
  });

  it('Codex: denies an apply_patch that rewrites .codex/hooks.json, and a Bash line that runs vouch uninstall codex', async () => {
    const setup = await ready();
    const codex = (tool_name: string, tool_input: Record<string, unknown>) =>
      setup.rig.run(['hook', 'codex', 'PreToolUse'], {
        stdin: JSON.stringify({ session_id: 's-adv', cwd: setup.rig.root, hook_event_name: 'PreToolUse', tool_name, tool_input }),
        env: { HOME: setup.user, CODEX_THREAD_ID: 't' },
      });
    const patch = '*** Begin Patch\n*** Add File: .codex/hooks.json\n+{}\n*** End Patch\n';
    expect(denial(await codex('apply_patch', { command: patch }))).toContain("Codex's project hooks");
    expect(denial(await codex('Bash', { command: 'vouch uninstall codex' }))).toContain('it runs `vouch uninstall codex`');
  });

  it('denies a write to the pre-push hook where core.hooksPath puts it', async () => {
    const setup = await ready();
    setup.git('config', 'core.hooksPath', '.githooks');
    expect(denial(await pre(setup, 'Write', { file_path: '.githooks/pre-push', content: '#!/bin/sh\nexit 0\n' }))).toContain("git's pre-push hook");
    // The old place is no longer where git looks: writing it reaches nothing.
    expect(denial(await pre(setup, 'Write', { file_path: '.git/hooks/pre-push', content: '' }))).toBeNull();
  });

  it("denies Write of the user's Claude Code settings and Codex hooks by absolute path, outside the workspace", async () => {
    const setup = await ready();
    expect(denial(await pre(setup, 'Write', { file_path: join(setup.user, '.claude/settings.json'), content: '{}' }))).toContain("Claude Code's user settings");
    expect(denial(await pre(setup, 'Write', { file_path: join(setup.user, '.codex/hooks.json'), content: '{}' }))).toContain("Codex's user hooks");
    expect(denial(await pre(setup, 'Write', { file_path: join(setup.user, '.codex/config.toml'), content: '' }))).toContain("Codex's MCP servers");
  });

  it('denies the user settings where CLAUDE_CONFIG_DIR and CODEX_HOME put them', async () => {
    const setup = await ready();
    const claude = join(setup.user, 'cc');
    const codex = join(setup.user, 'cx');
    const env = { CLAUDE_CONFIG_DIR: claude, CODEX_HOME: codex };
    expect(denial(await pre(setup, 'Write', { file_path: join(claude, 'settings.json'), content: '{}' }, { env }))).toContain("Claude Code's user settings");
    expect(denial(await pre(setup, 'Write', { file_path: join(codex, 'hooks.json'), content: '{}' }, { env }))).toContain("Codex's user hooks");
  });

  it('denies Write of the trust record under VOUCH_HOME (allowing an edited spec by hand)', async () => {
    const setup = await ready();
    const record = readdirSync(join(setup.rig.home, 'trust'))[0]!;
    const reason = denial(await pre(setup, 'Write', { file_path: join(setup.rig.home, 'trust', record), content: '{}' }));
    expect(reason).toContain('VOUCH_HOME');
  });

  it.each([
    ['a redirection into .claude/settings.json', `echo '{}' > .claude/settings.json`],
    ["rm -rf of the user's ~/.claude", 'rm -rf ~/.claude'],
    ['mv .claude away', 'mv .claude .claude.off'],
    ['sed -i on the trust record', 'sed -i s/a/b/ <home>/trust/x.json'],
    ['cp over the pre-push hook', 'cp /bin/true .git/hooks/pre-push'],
    ['rm -rf of VOUCH_HOME', 'rm -rf <home>'],
    ['a shell glob reaching VOUCH_HOME', 'rm <home>/trust/*'],
    ['tee into .codex/hooks.json after a cd', 'cd .codex && echo {} | tee hooks.json'],
  ])('denies %s', async (_name, command) => {
    const setup = await ready();
    mkdirSync(setup.rig.path('.claude'), { recursive: true });
    const reason = denial(await bash(setup, command.replaceAll('<home>', setup.rig.home)));
    expect(reason).toContain("vouch's own wiring");
  });

  it('denies a write through a symlink that leads to the wiring or into VOUCH_HOME', async () => {
    const setup = await ready();
    setup.rig.symlink(join(setup.user, '.claude/settings.json'), 'cfg.json');
    setup.rig.symlink(setup.rig.home, 'vh');
    expect(denial(await pre(setup, 'Write', { file_path: 'cfg.json', content: '{}' }))).toContain("Claude Code's user settings");
    expect(denial(await bash(setup, 'echo x > vh/trust/new.json'))).toContain('VOUCH_HOME');
  });

  it("denies the user's wiring outside any workspace too (a user-scope gate serves every workspace), and says nothing about other files", async () => {
    const setup = await ready();
    const elsewhere = join(dirname(setup.rig.root), 'elsewhere');
    mkdirSync(elsewhere);
    expect(denial(await pre(setup, 'Write', { file_path: join(setup.user, '.claude/settings.json'), content: '{}' }, { cwd: elsewhere }))).toContain(
      "Claude Code's user settings",
    );
    expect(denial(await bash(setup, 'vouch uninstall claude-code --scope user', { cwd: elsewhere }))).toContain('vouch uninstall');
    expect(denial(await pre(setup, 'Write', { file_path: join(elsewhere, 'notes.txt'), content: 'x' }, { cwd: elsewhere }))).toBeNull();
  });
});

describe("the agent cannot run the person's acts on the gate", () => {
  it.each([
    ['vouch uninstall claude-code', 'vouch uninstall claude-code', 'vouch uninstall claude-code'],
    ['vouch install (re-wiring the gate its own way)', 'vouch install codex --scope user', 'vouch install codex'],
    ['npx vouch uninstall', 'npx -y vouch uninstall git-hooks', 'vouch uninstall git-hooks'],
    ['node .../cli.js uninstall', 'node /opt/vouch/dist/cli.js -C . uninstall claude-code', 'vouch uninstall claude-code'],
    ['vouch uninstall with the agent markers stripped', 'env -u CLAUDECODE -u AI_AGENT vouch uninstall claude-code', 'vouch uninstall claude-code'],
    ['vouch uninstall inside sh -c', "sh -c 'vouch uninstall claude-code'", 'vouch uninstall claude-code'],
    ['vouch uninstall inside eval', 'eval vouch uninstall claude-code', 'vouch uninstall claude-code'],
    ['vouch uninstall inside $(...)', 'x=$(vouch uninstall claude-code)', 'vouch uninstall claude-code'],
    ['vouch install mcp --write', 'vouch install mcp --client cursor --write', 'vouch install mcp'],
    ['vouch keys generate (a key of its own to sign with)', 'vouch keys generate --name mine', 'vouch keys generate'],
    ['vouch hook: answering its own Stop hook', `echo '{"hook_event_name":"Stop"}' | vouch hook claude-code Stop`, 'vouch hook claude-code'],
    ['vouch hook through node .../cli.js', 'node dist/cli.js hook claude-code PostToolUse < fake.json', 'vouch hook claude-code'],
    ['git push --no-verify (skipping the pre-push gate)', 'git push --no-verify origin main', 'git push --no-verify'],
    ['git config core.hooksPath (pointing git away from the gate)', 'git config core.hooksPath /dev/null', 'git config core.hooksPath'],
    ['git -c core.hooksPath= for one push', 'git -c core.hooksPath=/tmp/none push', 'git -c core.hooksPath'],
  ])('denies %s', async (_name, command, act) => {
    const setup = await ready();
    const reason = denial(await bash(setup, command));
    expect(reason).toContain(`it runs \`${act}`);
  });

  it.each([
    ['vouch keys list and export-public', 'vouch keys list && vouch keys export-public --format hex'],
    ['vouch status and verify', 'vouch status --json && npx vouch verify tests'],
    ['a help page', 'vouch uninstall --help'],
    ['an ordinary push', 'git push origin main'],
    ['reading core.hooksPath', 'git config --get core.hooksPath'],
  ])('allows %s (and says nothing)', async (_name, command) => {
    const setup = await ready();
    expect(denial(await bash(setup, command))).toBeNull();
  });
});

describe('protect: holds against the bypasses the issue lists', () => {
  it("denies cd -P into a protected directory, then a relative write (cd -P test && printf 'exit 0' > check.sh)", async () => {
    const setup = await ready();
    expect(denial(await bash(setup, "cd -P test && printf 'exit 0' > check.sh"))).toContain('test/check.sh');
  });

  it('denies a write through a symlink made earlier in the same command line (ln -s test tt && echo x > tt/f)', async () => {
    const setup = await ready();
    expect(denial(await bash(setup, 'ln -s test tt && echo x > tt/check.sh'))).toContain('test/check.sh');
    expect(denial(await bash(setup, 'ln -sfn "$PWD/test" tt; cd tt && rm check.sh'))).toBeNull(); // "$PWD" is not read: left to the stop
    expect(denial(await bash(setup, 'ln -s test tt; cd tt && rm check.sh'))).toContain('test/check.sh');
  });

  it('denies a write to a hard link of a protected file, by the file tool and by the shell, in the workspace or outside it', async () => {
    const setup = await ready();
    // Made in an earlier call: creating a second name changes nothing, writing through it does.
    linkSync(setup.rig.path('test/check.sh'), setup.rig.path('h.sh'));
    const outside = join(dirname(setup.rig.root), 'h-out.sh');
    linkSync(setup.rig.path('test/check.sh'), outside);
    const viaTool = denial(await pre(setup, 'Write', { file_path: 'h.sh', content: 'exit 0\n' }));
    expect(viaTool).toContain('h.sh, which is another name (a hard link) of test/check.sh');
    expect(denial(await pre(setup, 'Edit', { file_path: outside, old_string: 'good', new_string: 'bad' }))).toContain('a hard link) of test/check.sh');
    expect(denial(await bash(setup, "printf 'exit 0' > h.sh"))).toContain('a hard link) of test/check.sh');
    // Removing the other name leaves the protected file as it is.
    expect(denial(await bash(setup, 'rm h.sh'))).toBeNull();
  });

  it('the trail marks a write through a hard link opaque, so the stop judges the result', async () => {
    const setup = await ready();
    linkSync(setup.rig.path('test/check.sh'), setup.rig.path('h.sh'));
    const post = (file_path: string, id: string) =>
      JSON.stringify({
        session_id: 's-adv',
        cwd: setup.rig.root,
        transcript_path: '/dev/null',
        hook_event_name: 'PostToolUse',
        tool_name: 'Write',
        tool_input: { file_path, content: 'x' },
        tool_response: {},
        tool_use_id: id,
      });
    expect((await setup.rig.run(['hook', 'claude-code', 'PostToolUse'], { stdin: post('h.sh', 't1'), env: IN_CLAUDE_CODE })).code).toBe(0);
    expect((await setup.rig.run(['hook', 'claude-code', 'PostToolUse'], { stdin: post('src/a.txt', 't2'), env: IN_CLAUDE_CODE })).code).toBe(0);
    const { rows } = await import('./helpers/ledger-db.js');
    const trail = rows(setup.rig)
      .filter((row) => row.kind === 'trail')
      .map((row) => JSON.parse(row.body));
    expect(trail.map((entry) => [entry.paths, entry.opaque_writes])).toEqual([
      [['h.sh'], true],
      [['src/a.txt'], false],
    ]);
  });

  it('denies a write to a hard link of the trust record in VOUCH_HOME', async () => {
    const setup = await ready();
    const record = readdirSync(join(setup.rig.home, 'trust'))[0]!;
    linkSync(join(setup.rig.home, 'trust', record), setup.rig.path('t.json'));
    expect(denial(await pre(setup, 'Write', { file_path: 't.json', content: '{}' }))).toContain('VOUCH_HOME');
  });

  it('denies a hard link made earlier in the same command line (ln test/check.sh h && echo x > h)', async () => {
    const setup = await ready();
    expect(denial(await bash(setup, 'ln test/check.sh h && echo "exit 0" > h'))).toContain('test/check.sh');
  });
});

describe('git commands that rewrite the work tree wholesale', () => {
  /** A branch `evil` that rewrites the protected test, and one `safe` that touches a source only. */
  async function branches(): Promise<Setup> {
    const setup = await ready();
    setup.git('checkout', '-qb', 'evil');
    writeFileSync(setup.rig.path('test/check.sh'), 'exit 0\n');
    setup.git('commit', '-qam', 'weaken the test');
    setup.git('checkout', '-q', 'main');
    setup.git('checkout', '-qb', 'safe');
    writeFileSync(setup.rig.path('src/a.txt'), 'good too\n');
    setup.git('commit', '-qam', 'a source');
    setup.git('checkout', '-q', 'main');
    return setup;
  }

  it.each([
    ['git checkout BRANCH', 'git checkout evil'],
    ['git checkout -f BRANCH', 'git checkout -f evil'],
    ['git switch', 'git switch evil'],
    ['git switch -c NEW START', 'git switch -c mine evil'],
    ['git reset --hard', 'git reset --hard evil'],
    ['git merge', 'git merge --no-edit evil'],
    ['git rebase', 'git rebase evil'],
    ['git cherry-pick', 'git cherry-pick evil'],
    ['git -C from a subdirectory', 'cd src && git -C .. checkout evil'],
    ['git checkout after cd into a subdirectory', 'cd src && git checkout evil'],
  ])('denies %s onto a branch that rewrites a protected test', async (_name, command) => {
    const setup = await branches();
    const reason = denial(await bash(setup, command));
    expect(reason).toContain('test/check.sh');
    expect(reason).toContain('protect: test/**');
  });

  it('denies git revert of a commit that touched a protected test', async () => {
    const setup = await branches();
    setup.git('merge', '-q', '--ff-only', 'safe');
    writeFileSync(setup.rig.path('test/check.sh'), 'grep -q good src/a.txt && true\n');
    setup.git('commit', '-qam', 'test tightened by a person');
    expect(denial(await bash(setup, 'git revert --no-edit HEAD'))).toContain('test/check.sh');
    expect(denial(await bash(setup, 'git revert --no-edit HEAD~1'))).toBeNull();
  });

  it('denies git stash when it would take back a change to a protected test, and git stash pop when it would bring one', async () => {
    const setup = await branches();
    writeFileSync(setup.rig.path('test/check.sh'), 'grep -q good src/a.txt # tightened\n');
    expect(denial(await bash(setup, 'git stash'))).toContain('test/check.sh');
    expect(denial(await bash(setup, 'git stash push -- src'))).toBeNull();
    setup.git('stash', '-q');
    expect(denial(await bash(setup, 'git stash pop'))).toContain('test/check.sh');
  });

  it('denies git stash -u when an untracked protected file would go', async () => {
    const setup = await ready();
    writeFileSync(setup.rig.path('test/new.sh'), 'true\n');
    expect(denial(await bash(setup, 'git stash -u'))).toContain('test/new.sh');
  });

  it('denies git apply and git am of patches that touch a protected test (file, stdin, here-document)', async () => {
    const setup = await ready();
    const patch = 'diff --git a/test/check.sh b/test/check.sh\n--- a/test/check.sh\n+++ b/test/check.sh\n@@ -1 +1 @@\n-grep -q good src/a.txt\n+exit 0\n';
    writeFileSync(join(dirname(setup.rig.root), 'fix.patch'), patch);
    writeFileSync(
      join(dirname(setup.rig.root), 'fix.mbox'),
      `From 0 Mon Sep 17 00:00:00 2001\nFrom: t <t@example.com>\nSubject: [PATCH] x\n\n---\n${patch}--\n2.39\n`,
    );
    expect(denial(await bash(setup, 'git apply ../fix.patch'))).toContain('test/check.sh');
    expect(denial(await bash(setup, 'git apply < ../fix.patch'))).toContain('test/check.sh');
    expect(denial(await bash(setup, 'cat ../fix.patch | git apply'))).toContain('test/check.sh');
    expect(denial(await bash(setup, `git apply <<'EOF'\n${patch}EOF`))).toContain('test/check.sh');
    expect(denial(await bash(setup, 'git am ../fix.mbox'))).toContain('test/check.sh');
    expect(denial(await bash(setup, 'git apply --check ../fix.patch'))).toBeNull();
  });

  it("denies git checkout onto a branch that changes the gate's wiring (.claude/settings.json)", async () => {
    const setup = await ready();
    setup.git('checkout', '-qb', 'unwired');
    setup.rig.write({ '.claude/settings.json': '{"disableAllHooks": true}\n' });
    setup.git('add', '-A');
    setup.git('commit', '-qm', 'no hooks');
    setup.git('checkout', '-q', 'main');
    expect(denial(await bash(setup, 'git checkout unwired'))).toContain("Claude Code's project settings");
  });

  it('allows a checkout that touches no protected path, and leaves what it cannot tell (git pull) to the stop, marked opaque in the trail', async () => {
    const setup = await branches();
    expect(denial(await bash(setup, 'git checkout safe'))).toBeNull();
    expect(denial(await bash(setup, 'git checkout no-such-branch'))).toBeNull();
    expect(denial(await bash(setup, 'git pull --rebase origin main'))).toBeNull();
    const post = JSON.stringify({
      session_id: 's-adv',
      cwd: setup.rig.root,
      transcript_path: '/dev/null',
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'git pull --rebase origin main' },
      tool_response: { stdout: '' },
      tool_use_id: 't2',
    });
    expect((await setup.rig.run(['hook', 'claude-code', 'PostToolUse'], { stdin: post, env: IN_CLAUDE_CODE })).code).toBe(0);
    const { rows } = await import('./helpers/ledger-db.js');
    const trail = rows(setup.rig).filter((row) => row.kind === 'trail');
    expect(trail.map((row) => JSON.parse(row.body))).toEqual([expect.objectContaining({ tool: 'Bash', opaque_writes: true })]);
  });
});

describe("the CLI refuses the gate's wiring and keys inside an agent run (exit 4, agent_run)", () => {
  it.each([
    ['install claude-code', ['install', 'claude-code'], '.claude/settings.json'],
    ['install mcp --write', ['install', 'mcp', '--client', 'cursor', '--write'], '.cursor/mcp.json'],
    ['install mcp (printing only)', ['install', 'mcp', '--client', 'cursor'], null],
  ])('refuses %s, and writes nothing', async (_name, args, path) => {
    const setup = await ready();
    const result = await setup.rig.run(args, { env: IN_CLAUDE_CODE });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('agent_run');
    expect(result.stdout).toBe('');
    if (path) expect(existsSync(setup.rig.path(path))).toBe(false);
  });

  it('refuses uninstall claude-code inside the agent run, and the installed hooks stay', async () => {
    const setup = await ready();
    expect((await setup.rig.run(['install', 'claude-code'])).code).toBe(0);
    const before = readFileSync(setup.rig.path('.claude/settings.json'), 'utf8');
    for (const env of [IN_CLAUDE_CODE, { CODEX_THREAD_ID: 't' }, { AI_AGENT: 'x' }]) {
      const result = await setup.rig.run(['uninstall', 'claude-code'], { env });
      expect(result.code).toBe(4);
      expect(result.stderr).toContain('agent_run');
    }
    expect(readFileSync(setup.rig.path('.claude/settings.json'), 'utf8')).toBe(before);
  });

  it('refuses keys generate inside the agent run and makes no key; keys list still answers', async () => {
    const setup = await ready();
    const result = await setup.rig.run(['keys', 'generate', '--name', 'mine'], { env: IN_CLAUDE_CODE });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('agent_run');
    expect(existsSync(join(setup.rig.home, 'keys', 'mine.key'))).toBe(false);
    expect((await setup.rig.run(['keys', 'list', '--json'], { env: IN_CLAUDE_CODE })).json()).toEqual([]);
  });
});
