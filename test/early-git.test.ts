import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * `vouch verify` starts git's status of the tree in the launcher, before the
 * hot bundle is compiled (src/core/early-git.ts), and the receipts' git
 * takes it when it is for the workspace's own repository. These cases hold
 * it to what a receipt must say: the HEAD and the dirty flag of the
 * workspace's repository (not of the directory vouch was started in), and
 * no isolated git directory left behind, whether the status was taken or
 * dropped (a spec not allowed runs nothing, and asks git nothing).
 */

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const SPEC = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim();
}

async function committedRig(): Promise<Rig> {
  const rig = new Rig().write({ 'src/a.ts': 'a', 'README.md': 'r' });
  git(rig.root, 'init', '-q');
  await rig.spec(SPEC);
  git(rig.root, 'add', '-A');
  git(rig.root, 'commit', '-qm', 'base');
  return rig;
}

/** A directory of its own for the isolated git directories (TMPDIR), to count what is left in it. */
function privateTmp(): string {
  return mkdtempSync(join(tmpdir(), 'vouch-early-tmp-'));
}

async function verifyTraced(rig: Rig, args: string[], cwd: string, tmp: string) {
  const run = await rig.run(['verify', ...args], { cwd, env: { VOUCH_TRACE: '1', TMPDIR: tmp } });
  const trace = /vouch trace: (.*)/.exec(run.stderr)?.[1] ?? '';
  return { run, trace };
}

async function receiptGit(rig: Rig, receipt: string) {
  return (await rig.run(['show', receipt, '--json'])).json().receipt.git as { head: string | null; dirty: boolean } | null;
}

describe("verify's early git status", () => {
  it("is taken by the receipt: HEAD and a tracked change outside the check's scope (dirty) come from it, and its directory is removed", async () => {
    const rig = await committedRig();
    rig.write({ 'README.md': 'changed, tracked, outside the scope' });
    const tmp = privateTmp();
    const { run, trace } = await verifyTraced(rig, ['t', '--json'], rig.root, tmp);
    expect(run.code, run.stderr).toBe(0);
    expect(trace).toContain('early_git=taken');
    expect(await receiptGit(rig, run.json().checks[0].receipt)).toEqual({ head: git(rig.root, 'rev-parse', 'HEAD'), dirty: true });
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('verify run from another repository with -C into the workspace (before or after the command word): started where -C points, it is taken', async () => {
    const rig = await committedRig();
    const elsewhere = new Rig().write({ 'x.txt': 'x' });
    git(elsewhere.root, 'init', '-q');
    git(elsewhere.root, 'add', '-A');
    git(elsewhere.root, 'commit', '-qm', 'other');
    const head = git(rig.root, 'rev-parse', 'HEAD');
    expect(head).not.toBe(git(elsewhere.root, 'rev-parse', 'HEAD'));
    for (const args of [
      ['-C', rig.root, 't', '--json'],
      [`--dir=${rig.root}`, 't', '--json'],
    ]) {
      const tmp = privateTmp();
      const { run, trace } = await verifyTraced(rig, args, elsewhere.root, tmp);
      expect(run.code, run.stderr).toBe(0);
      expect(trace).toContain('early_git=taken');
      expect(await receiptGit(rig, run.json().checks[0].receipt)).toEqual({ head, dirty: false });
      expect(readdirSync(tmp)).toEqual([]);
    }
  });

  it('started in a repository nested in the workspace (a vendored clone), it is dropped: the receipt has the workspace repository’s HEAD, not the nested one’s', async () => {
    const rig = await committedRig();
    const nested = join(rig.root, 'vendor', 'lib');
    mkdirSync(nested, { recursive: true });
    writeFileSync(join(nested, 'x.txt'), 'x');
    git(nested, 'init', '-q');
    git(nested, 'add', '-A');
    git(nested, 'commit', '-qm', 'vendored');
    const head = git(rig.root, 'rev-parse', 'HEAD');
    expect(head).not.toBe(git(nested, 'rev-parse', 'HEAD'));
    const tmp = privateTmp();
    const { run, trace } = await verifyTraced(rig, ['t', '--json'], nested, tmp);
    expect(run.code, run.stderr).toBe(0);
    expect(trace).toContain('early_git=started');
    expect(await receiptGit(rig, run.json().checks[0].receipt)).toEqual({ head, dirty: false });
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('started in a subdirectory of the workspace, it is the same repository and is taken', async () => {
    const rig = await committedRig();
    const sub = join(rig.root, 'src');
    const tmp = privateTmp();
    const { run, trace } = await verifyTraced(rig, ['t', '--json'], sub, tmp);
    expect(run.code, run.stderr).toBe(0);
    expect(trace).toContain('early_git=taken');
    expect(await receiptGit(rig, run.json().checks[0].receipt)).toEqual({ head: git(rig.root, 'rev-parse', 'HEAD'), dirty: false });
  });

  it('a spec never allowed: nothing runs, the status is dropped and its directory removed at exit', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    git(rig.root, 'init', '-q');
    writeFileSync(join(rig.root, 'vouch.yaml'), SPEC);
    git(rig.root, 'add', '-A');
    git(rig.root, 'commit', '-qm', 'base');
    mkdirSync(join(rig.root, 'src', 'more'), { recursive: true });
    const tmp = privateTmp();
    const { run, trace } = await verifyTraced(rig, ['t'], rig.root, tmp);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('never allowed');
    expect(trace).toContain('early_git=started');
    expect(readdirSync(tmp)).toEqual([]);
  });
});
