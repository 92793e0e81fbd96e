import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/** `vouch verify --since REF`: the checks whose scope changed between REF and the work tree, in a real git repository. */

const SPEC = `version: 1
checks:
  - {id: a, run: ["true"], sources: ["src/a/**"]}
  - {id: b, run: ["true"], sources: ["src/b/**"]}
  - {id: c, run: ["true"], sources: ["src/c/**"], exclude: ["src/c/skip.txt"]}
`;

function git(rig: Rig, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: rig.root, encoding: 'utf8' });
}

async function repository(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a/x.txt': 'a', 'src/b/x.txt': 'b', 'src/c/x.txt': 'c', 'src/c/skip.txt': 's', '.gitignore': '.vouch/\n' });
  await rig.spec(SPEC);
  git(rig, 'init', '-q');
  git(rig, 'add', '.');
  git(rig, 'commit', '-qm', 'base');
  return rig;
}

const ran = (result: { json: () => { checks: { id: string }[] } }) => result.json().checks.map((c) => c.id);

describe('vouch verify --since REF', () => {
  it('runs only the checks whose scope holds a file changed since REF: edited, untracked or deleted, never an excluded one', async () => {
    const rig = await repository();
    rig.write({ 'src/a/x.txt': 'a2', 'src/c/skip.txt': 's2' });
    const edited = await rig.run(['verify', '--since', 'HEAD', '--json']);
    expect(edited.code, edited.stderr).toBe(0);
    expect(ran(edited)).toEqual(['a']);
    expect(edited.json().since).toEqual({ ref: 'HEAD', changed: 2, selected: ['a'] });

    rig.write({ 'src/b/new.txt': 'n' });
    expect(ran(await rig.run(['verify', '--since', 'HEAD', '--json']))).toEqual(['a', 'b']);
    git(rig, 'add', '.');
    git(rig, 'commit', '-qm', 'second');
    git(rig, 'rm', '-q', 'src/c/x.txt');
    // Against the first commit: a and b changed in the second, c's file is gone from the work tree.
    expect(ran(await rig.run(['verify', '--since', 'HEAD~1', '--json']))).toEqual(['a', 'b', 'c']);
    expect(ran(await rig.run(['verify', 'b', 'c', '--since', 'HEAD~1', '--json']))).toEqual(['b', 'c']);
  });

  it('with nothing changed in any selected scope it runs nothing, grades nothing and says so (exit 1: an absent grade is not a pass)', async () => {
    const rig = await repository();
    const result = await rig.run(['verify', '--since', 'HEAD']);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("nothing run: no selected check's scope changed since HEAD");
    expect((await rig.run(['log', '--json'])).json()).toEqual([]);
  });

  it('refuses a ref that names no commit, and a workspace outside git (usage, exit 2), quoting what it got', async () => {
    const rig = await repository();
    const bad = await rig.run(['verify', '--since', 'no-such-branch']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"no-such-branch" names no commit here');
    const option = await rig.run(['verify', '--since=--output=/tmp/x']);
    expect(option.code).toBe(2);
    const plain = new Rig().write({ 'src/a/x.txt': 'a' });
    await plain.spec(SPEC.replace(/\n {2}- \{id: [bc].*/g, ''));
    const outside = await plain.run(['verify', '--since', 'HEAD']);
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('--since needs a git work tree');
  });
});
