import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rig } from './helpers/rig.js';

/*
 * What a receipt records of git (HEAD, dirty) is learnt for its own check's
 * scope (src/engine/git.ts, src/scope/git-pathspecs.ts): a tracked change
 * anywhere, or a file of the check's fingerprint that is untracked and not
 * ignored, makes it dirty; nothing else does, however high up its globs
 * start. Each case drives the real CLI in a real repository.
 */

const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim();
}

/** A repository at the rig's root holding `files` and the spec, all committed. */
async function committed(files: Record<string, string>, spec: string): Promise<Rig> {
  const rig = new Rig().write(files);
  git(rig.root, 'init', '-q');
  await rig.spec(spec);
  git(rig.root, 'add', '-A');
  git(rig.root, 'commit', '-qm', 'base');
  return rig;
}

interface Recorded {
  readonly verdict: string;
  readonly git: { head: string | null; dirty: boolean } | null;
  readonly files: readonly string[];
}

/** Verifies one check and reads back its receipt: verdict, git and the manifest's paths. */
async function verified(rig: Rig, check: string, cwd = rig.root): Promise<Recorded> {
  const run = await rig.run(['verify', check, '--json'], { cwd });
  expect(run.code, run.stderr).toBe(0);
  const shown = (await rig.run(['show', run.json().checks[0].receipt, '--json'], { cwd })).json();
  return { verdict: shown.receipt.verdict, git: shown.receipt.git, files: shown.manifest.files.map((file: [string]) => file[0]) };
}

const clean = (rig: Rig, at = rig.root) => ({ head: git(at, 'rev-parse', 'HEAD'), dirty: false });
const dirty = (rig: Rig, at = rig.root) => ({ head: git(at, 'rev-parse', 'HEAD'), dirty: true });

describe('a receipt learns git for its own scope', () => {
  it('an untracked file inside the scope is fingerprinted and makes the receipt dirty; once committed, it is clean', async () => {
    const rig = await committed({ 'src/a.ts': 'a' }, 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    expect((await verified(rig, 't')).git).toEqual(clean(rig));
    rig.write({ 'src/new.ts': 'n' });
    const found = await verified(rig, 't');
    expect(found.files).toContain('src/new.ts');
    expect(found.git).toEqual(dirty(rig));
    git(rig.root, 'add', 'src/new.ts');
    git(rig.root, 'commit', '-qm', 'new');
    expect((await verified(rig, 't')).git).toEqual(clean(rig));
  });

  it('an ignored file inside the scope is fingerprinted as before (vouch reads no .gitignore) and leaves the receipt clean', async () => {
    const rig = await committed(
      { '.gitignore': '*.log\n.vouch/\n', 'src/a.ts': 'a' },
      'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n',
    );
    rig.write({ 'src/debug.log': 'noise' });
    const found = await verified(rig, 't');
    expect(found.files).toContain('src/debug.log');
    expect(found.git).toEqual(clean(rig));
  });

  it("a file outside the scope never changes the check's verdict nor its receipt, though its globs start at the root", async () => {
    // "*.config.js" starts at the root: before, every untracked file of the tree was looked for (and counted).
    const spec = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**", "*.config.js"]}\n';
    const rig = await committed({ 'src/a.ts': 'a', 'app.config.js': 'c', 'notes/keep.md': 'k' }, spec);
    expect(await verified(rig, 't')).toMatchObject({ verdict: 'PASS', git: clean(rig) });
    rig.write({ 'notes/todo.md': 'untracked', 'scratch/deep/x.ts': 'untracked', 'notes/keep.md': 'edited, tracked' });
    git(rig.root, 'checkout', '--', 'notes/keep.md');
    const status = (await rig.run(['status', '--json'])).json().checks[0];
    expect(status).toMatchObject({ id: 't', status: 'PASS' });
    expect(await verified(rig, 't')).toMatchObject({ verdict: 'PASS', git: clean(rig) });
    // In scope at the root: counted.
    rig.write({ 'new.config.js': 'n' });
    expect((await verified(rig, 't')).git).toEqual(dirty(rig));
  });

  it('nested .gitignore files decide at every level: ignored below, counted beside, an ignored directory inside the scope', async () => {
    const rig = await committed(
      { '.gitignore': '.vouch/\ncache/\n', 'src/a.ts': 'a', 'src/gen/.gitignore': '*.out\n', 'src/gen/keep.ts': 'k' },
      'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n',
    );
    rig.write({ 'src/gen/a.out': 'generated', 'src/cache/blob.ts': 'cached', 'src/gen/deeper/b.out': 'generated' });
    const found = await verified(rig, 't');
    expect(found.files).toEqual(expect.arrayContaining(['src/gen/a.out', 'src/cache/blob.ts', 'src/gen/deeper/b.out']));
    expect(found.git).toEqual(clean(rig));
    rig.write({ 'src/gen/b.ts': 'not ignored' });
    expect((await verified(rig, 't')).git).toEqual(dirty(rig));
  });

  it('a scope glob with ** at several depths: an untracked file it matches counts, one beside it that it does not match does not', async () => {
    const spec = 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["packages/**/src/**/*.ts"], tests: ["**/__tests__/**"]}\n';
    const rig = await committed({ 'packages/a/src/one.ts': '1', 'packages/a/b/src/deep/two.ts': '2', 'lib/__tests__/t.js': 't' }, spec);
    expect((await verified(rig, 't')).git).toEqual(clean(rig));
    rig.write({ 'packages/a/src/notes.md': 'not matched', 'packages/a/b/c/x.ts': 'no src above', 'lib/x.js': 'not a test' });
    expect((await verified(rig, 't')).git).toEqual(clean(rig));
    rig.write({ 'packages/a/b/src/deep/er/three.ts': '3' });
    expect((await verified(rig, 't')).git).toEqual(dirty(rig));
    git(rig.root, 'add', '-A');
    git(rig.root, 'commit', '-qm', 'three');
    rig.write({ 'deep/down/__tests__/new.js': 'a test, two levels down' });
    expect((await verified(rig, 't')).git).toEqual(dirty(rig));
  });

  it('each check is judged by its own scope: an untracked file in one makes only that one dirty', async () => {
    const spec = 'version: 1\nchecks:\n  - {id: front, run: ["true"], sources: ["src/**"]}\n  - {id: back, run: ["true"], sources: ["lib/**"]}\n';
    const rig = await committed({ 'src/a.ts': 'a', 'lib/b.ts': 'b' }, spec);
    rig.write({ 'src/new.ts': 'n' });
    const run = await rig.run(['verify', '--json']);
    expect(run.code).toBe(0);
    const gitOf = async (id: string) =>
      (await rig.run(['show', run.json().checks.find((c: { id: string }) => c.id === id).receipt, '--json'])).json().receipt.git;
    expect(await gitOf('front')).toEqual(dirty(rig));
    expect(await gitOf('back')).toEqual(clean(rig));
  });

  it('a tracked change anywhere, even outside every scope, still makes every receipt dirty', async () => {
    const rig = await committed({ 'src/a.ts': 'a', 'docs/readme.md': 'r' }, 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"]}\n');
    rig.write({ 'docs/readme.md': 'changed' });
    expect((await verified(rig, 't')).git).toEqual(dirty(rig));
  });

  it('a workspace below the top of its repository (in a folder named with glob characters) looks at its own files, not the same paths from the top', async () => {
    const rig = new Rig().write({ 'src/top.ts': 'top-level src, outside the workspace' });
    const ws = rig.path('pkg [1]*');
    mkdirSync(join(ws, 'src'), { recursive: true });
    writeFileSync(join(ws, 'src', 'a.ts'), 'a');
    writeFileSync(join(ws, 'tsconfig.json'), '{}');
    writeFileSync(join(ws, 'vouch.yaml'), 'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**", "tsconfig*.json"]}\n');
    git(rig.root, 'init', '-q');
    expect((await rig.run(['allow'], { cwd: ws })).code).toBe(0);
    git(rig.root, 'add', '-A');
    git(rig.root, 'commit', '-qm', 'base');
    expect((await verified(rig, 't', ws)).git).toEqual(clean(rig));
    rig.write({ 'src/new.ts': 'untracked, outside the workspace' });
    expect((await verified(rig, 't', ws)).git).toEqual(clean(rig));
    writeFileSync(join(ws, 'src', 'new.ts'), 'untracked, in scope');
    expect((await verified(rig, 't', ws)).git).toEqual(dirty(rig));
  });

  it('a submodule inside the scope leaves the receipt clean: its files are its own repository’s', async () => {
    const rig = new Rig();
    const sub = rig.path('../sub');
    mkdirSync(sub);
    writeFileSync(join(sub, 'x.ts'), 'x');
    git(sub, 'init', '-q');
    git(sub, 'add', '-A');
    git(sub, 'commit', '-qm', 'sub');
    rig.write({ 'src/a.ts': 'a' });
    git(rig.root, 'init', '-q');
    git(rig.root, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'libs/sub');
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["**/*.ts"]}\n');
    git(rig.root, 'add', '-A');
    git(rig.root, 'commit', '-qm', 'base');
    const found = await verified(rig, 't');
    expect(found.files).toContain('libs/sub/x.ts');
    expect(found.git).toEqual(clean(rig));
  });

  it('a workspace outside git records no git at all, and passes', async () => {
    const rig = new Rig().write({ 'src/a.ts': 'a' });
    await rig.spec('version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**"], inputs: ["*.json"]}\n');
    expect(await verified(rig, 't')).toMatchObject({ verdict: 'PASS', git: null });
  });

  it('attack: an untracked file named like pathspec magic or a glob (":x.ts", "[ab].ts") beside ignored or tracked look-alikes still makes the receipt dirty', async () => {
    // ":x.ts" read as magic is "x.ts", which is ignored; "src/[ab].ts" read as a glob is "src/a.ts", which is tracked.
    const rig = await committed(
      { '.gitignore': '.vouch/\nx.ts\n', 'src/a.ts': 'a', 'm.ts': 'm' },
      'version: 1\nchecks:\n  - {id: t, run: ["true"], sources: ["src/**", "*.ts"]}\n',
    );
    expect((await verified(rig, 't')).git).toEqual(clean(rig));
    rig.write({ ':x.ts': 'hidden?' });
    expect((await verified(rig, 't')).git).toEqual(dirty(rig));
    execFileSync('rm', [rig.path(':x.ts')]);
    rig.write({ 'src/[ab].ts': 'hidden?' });
    const found = await verified(rig, 't');
    expect(found.files).toContain('src/[ab].ts');
    expect(found.git).toEqual(dirty(rig));
  });
});
