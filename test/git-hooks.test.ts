import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, Rig } from './helpers/rig.js';

/*
 * git's hooks as git runs them: `vouch install git-hooks [--pre-commit]`,
 * then real `git push` to a real bare repository and real `git commit`.
 * What is judged is what git sends or records, never the work tree.
 */

const SPEC = 'version: 1\nchecks:\n  - {id: unit, run: ["sh", "-c", "grep -q ok src/a.txt"], sources: ["src/**"]}\n';
const identity = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

interface Done {
  readonly code: number;
  readonly stderr: string;
}

/** A workspace in a git repository with a bare remote, the spec allowed and committed, the hooks installed. */
async function repo(options: { preCommit?: boolean; projectBin?: boolean } = {}): Promise<Rig & { git: (...args: string[]) => Done; tmp: string }> {
  const rig = new Rig().write({ 'src/a.txt': 'ok\n' });
  // The project's own vouch in node_modules (ignored, as it is): this built vouch through a shim, as npm's cmd-shim makes one.
  if (options.projectBin) rig.write({ '.gitignore': 'node_modules/\n' }).script('node_modules/.bin/vouch', `exec ${process.execPath} ${CLI} "$@"`);
  const remote = join(dirname(rig.root), 'remote.git');
  // Where the hooks make their temporary directories: each test's own, so a leftover is seen.
  const tmp = join(dirname(rig.root), 'tmp');
  mkdirSync(remote);
  mkdirSync(tmp);
  const git = (...args: string[]): Done => {
    const done = spawnSync('git', args, {
      cwd: rig.root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...identity, ...rig.env({ TMPDIR: tmp }) },
    });
    return { code: done.status ?? 128, stderr: done.stderr };
  };
  execFileSync('git', ['init', '-q', '--bare', remote]);
  git('init', '-q');
  await rig.spec(SPEC);
  git('add', '-A');
  git('commit', '-qm', 'one');
  git('remote', 'add', 'origin', remote);
  const installed = await rig.run(['install', 'git-hooks', ...(options.preCommit ? ['--pre-commit'] : [])]);
  expect(installed.code, installed.stderr).toBe(0);
  return Object.assign(rig, { git, tmp });
}

describe('pre-push judges the commits being pushed', () => {
  it('refuses a broken commit while the uncommitted working copy passes (work_tree_differs), and nothing is left in TMPDIR', async () => {
    const rig = await repo();
    rig.write({ 'src/a.txt': 'bad\n' });
    rig.git('commit', '-qam', 'break it');
    // The person fixes it in the work tree, verifies that, and pushes the broken commit.
    rig.write({ 'src/a.txt': 'ok\n' });
    expect((await rig.run(['verify'])).code).toBe(0);
    expect((await rig.run(['status'])).code).toBe(0);
    const pushed = rig.git('push', '-q', 'origin', 'HEAD:main');
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain('vouch: push refused: HEAD (');
    expect(pushed.stderr).toContain('work_tree_differs');
    expect(pushed.stderr).toContain('src/a.txt');
    expect(pushed.stderr).toContain('git stash -u');
    expect(readdirSync(rig.tmp)).toEqual([]);
  });

  it('allows a good commit with a broken uncommitted edit: a receipt passed on exactly its files', async () => {
    const rig = await repo();
    expect((await rig.run(['verify'])).code).toBe(0);
    rig.write({ 'src/a.txt': 'bad\n' });
    // The work tree's own status is a FAIL now: that is not what is pushed.
    expect((await rig.run(['verify'])).code).toBe(1);
    const pushed = rig.git('push', '-q', 'origin', 'HEAD:main');
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stderr).toContain('vouch: push allowed');
    expect(readdirSync(rig.tmp)).toEqual([]);
  });

  it('a good commit never verified, with a broken edit on top, is refused: nothing proves its files', async () => {
    const rig = await repo();
    rig.write({ 'src/a.txt': 'bad\n' });
    const pushed = rig.git('push', '-q', 'origin', 'HEAD:main');
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain('work_tree_differs');
  });

  it("judges the work tree's status when it holds the commit's files: a verified clean tree pushes, an unverified one is told to verify", async () => {
    const rig = await repo();
    const unverified = rig.git('push', '-q', 'origin', 'HEAD:main');
    expect(unverified.code).not.toBe(0);
    expect(unverified.stderr).toContain('no_receipt');
    expect(unverified.stderr).toContain('run `vouch verify`, then push again');
    expect((await rig.run(['verify'])).code).toBe(0);
    expect(rig.git('push', '-q', 'origin', 'HEAD:main').code).toBe(0);
  });

  it('judges every pushed ref: one broken branch among good ones refuses the push', async () => {
    const rig = await repo();
    expect((await rig.run(['verify'])).code).toBe(0);
    rig.git('branch', 'good');
    rig.git('checkout', '-q', '-b', 'bad');
    rig.write({ 'src/a.txt': 'bad\n' });
    rig.git('commit', '-qam', 'break it');
    rig.git('checkout', '-q', 'good');
    const pushed = rig.git('push', '-q', 'origin', 'good', 'bad');
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toMatch(/push allowed: refs\/heads\/good/);
    expect(pushed.stderr).toMatch(/push refused: refs\/heads\/bad/);
    expect(rig.git('push', '-q', 'origin', 'good').code).toBe(0);
  });

  it('lets a ref being deleted through, whatever the work tree holds', async () => {
    const rig = await repo();
    expect((await rig.run(['verify'])).code).toBe(0);
    expect(rig.git('push', '-q', 'origin', 'HEAD:gone').code).toBe(0);
    rig.write({ 'src/a.txt': 'bad\n' });
    const deleted = rig.git('push', 'origin', ':gone');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stderr).toContain('refs/heads/gone: deleted, nothing to judge');
  });

  it('attack: a commit whose vouch.yaml weakens the check is not judged by its own spec', async () => {
    const rig = await repo();
    expect((await rig.run(['verify'])).code).toBe(0);
    // The committed spec says `true`; the work tree keeps the allowed one, whose receipt would not cover the broken file.
    const allowed = rig.read('vouch.yaml');
    rig.write({ 'vouch.yaml': allowed.replace('["sh", "-c", "grep -q ok src/a.txt"]', '["true"]'), 'src/a.txt': 'bad\n' });
    rig.git('commit', '-qam', 'weaken');
    rig.write({ 'vouch.yaml': allowed, 'src/a.txt': 'ok\n' });
    const pushed = rig.git('push', '-q', 'origin', 'HEAD:main');
    expect(pushed.code).not.toBe(0);
    expect(pushed.stderr).toContain('spec_not_allowed');
  });

  it('with nothing on stdin (run by hand) it judges the work tree; a malformed ref line is a usage error', async () => {
    const rig = await repo();
    expect((await rig.run(['hook', 'git', 'pre-push'])).code).toBe(1);
    expect((await rig.run(['verify'])).code).toBe(0);
    expect((await rig.run(['hook', 'git', 'pre-push'])).code).toBe(0);
    const bad = await rig.run(['hook', 'git', 'pre-push'], { stdin: 'refs/heads/main nonsense\n' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('stdin line 1');
  });
});

describe('portable git hooks', () => {
  it("in a workspace that depends on vouch, the hook names the project's node_modules/.bin/vouch relative to the work tree, no path of this workspace, and it runs", async () => {
    const rig = await repo({ projectBin: true });
    const hook = rig.read('.git/hooks/pre-push');
    expect(hook).toContain(' ./node_modules/.bin/vouch -C . hook git pre-push || exit 1');
    expect(hook).not.toContain(rig.root);
    expect(hook).not.toContain(process.execPath);
    expect((await rig.run(['verify'])).code).toBe(0);
    const pushed = rig.git('push', '-q', 'origin', 'HEAD:main');
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stderr).toContain('vouch: push allowed');
  });
});

describe('pre-commit judges the staged files (install git-hooks --pre-commit)', () => {
  it('refuses a staged broken file with a fixed unstaged copy, and allows the reverse', async () => {
    const rig = await repo({ preCommit: true });
    rig.write({ 'src/a.txt': 'bad\n' });
    rig.git('add', 'src/a.txt');
    rig.write({ 'src/a.txt': 'ok\n' });
    expect((await rig.run(['verify'])).code).toBe(0);
    const refused = rig.git('commit', '-qm', 'broken staged');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('vouch: commit refused: the staged files');
    expect(refused.stderr).toContain('work_tree_differs');
    expect(refused.stderr).toContain('--keep-index');

    // The reverse: a good file staged (and verified), a broken edit left unstaged.
    rig.write({ 'src/a.txt': 'ok, two\n' });
    expect((await rig.run(['verify'])).code).toBe(0);
    rig.git('add', 'src/a.txt');
    rig.write({ 'src/a.txt': 'bad again\n' });
    const allowed = rig.git('commit', '-qm', 'good staged');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toContain('vouch: commit allowed');
    expect(readdirSync(rig.tmp)).toEqual([]);
  });

  it("attack: `git commit -a` of a broken edit is judged on what -a records (git's own index for the hook), not on the index before it", async () => {
    const rig = await repo({ preCommit: true });
    expect((await rig.run(['verify'])).code).toBe(0);
    rig.write({ 'src/a.txt': 'bad\n' });
    // The repository's index still holds the verified file; -a commits the broken one through an index of its own.
    const refused = rig.git('commit', '-qam', 'all of it');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('vouch: commit refused');
    expect(refused.stderr).toContain('STALE');
  });

  it('uninstall takes both hooks back byte for byte, and leaves a pre-commit hook vouch did not write alone', async () => {
    const rig = await repo({ preCommit: true });
    const hooks = rig.path('.git/hooks');
    expect(readFileSync(join(hooks, 'pre-commit'), 'utf8')).toContain('hook git pre-commit');
    expect((await rig.run(['uninstall', 'git-hooks'])).code).toBe(0);
    expect(existsSync(join(hooks, 'pre-commit'))).toBe(false);
    expect(existsSync(join(hooks, 'pre-push'))).toBe(false);

    // A person's own pre-commit, and vouch installed without --pre-commit: uninstall leaves it as it was.
    writeFileSync(join(hooks, 'pre-commit'), '#!/bin/sh\nmake lint\n', { mode: 0o755 });
    expect((await rig.run(['install', 'git-hooks'])).code).toBe(0);
    const removed = await rig.run(['uninstall', 'git-hooks']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(readFileSync(join(hooks, 'pre-commit'), 'utf8')).toBe('#!/bin/sh\nmake lint\n');
  });

  it('--pre-commit belongs to git-hooks only', async () => {
    const rig = await repo();
    const result = await rig.run(['install', 'claude-code', '--pre-commit']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--pre-commit is an option of git-hooks');
  });
});
