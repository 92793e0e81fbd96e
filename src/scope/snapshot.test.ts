import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StatCache } from '../cache/stat-cache.js';
import { sha256 } from '../core/digest.js';
import { scanScope, type ScopeDecl } from './scan.js';
import { Snapshot } from './snapshot.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-snap-')));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const SCOPE: ScopeDecl = { sources: ['src/**'], tests: [], artifacts: [], exclude: [], allowMissing: false };
// The racy rule trusts only files whose timestamps are older than the read
// by a margin. Files written by a test are seconds old at most, so a test
// that needs entries remembered reads "ten minutes from now".
const LATER = () => new Date(Date.now() + 600_000);

async function scan(root: string, cache: StatCache, readStart = LATER(), scope = SCOPE) {
  const snapshot = new Snapshot(root, { cache, readStart });
  const result = await scanScope(snapshot, scope, ['source']);
  return { snapshot, result, hashes: Object.fromEntries(result.manifest.files.map((f) => [f[0], f[1]])) };
}

/**
 * Rewrites a file with other bytes of the same size and puts its mtime back
 * to the nanosecond (touch -r uses utimensat), as a careful attacker would.
 */
function sameSizeEdit(path: string, content: string): void {
  const before = statSync(path, { bigint: true });
  execFileSync('touch', ['-r', path, `${path}.ref`]);
  writeFileSync(path, content);
  execFileSync('touch', ['-r', `${path}.ref`, path]);
  rmSync(`${path}.ref`);
  const after = statSync(path, { bigint: true });
  expect(after.size).toBe(before.size);
  expect(after.mtimeNs).toBe(before.mtimeNs);
}

describe('Snapshot with a stat cache', () => {
  it('reads nothing again for an unchanged tree: the scope is answered by its record, after one lstat per entry', async () => {
    const root = tree({ 'src/a.ts': 'a', 'src/sub/b.ts': 'b', 'docs/x.md': 'x' });
    const cache = StatCache.inMemory(root);
    const first = await scan(root, cache);
    expect(first.snapshot.counts).toMatchObject({ filesHashed: 2, filesRemembered: 0 });
    const second = await scan(root, cache);
    // src, src/sub, src/a.ts, src/sub/b.ts: nothing listed, nothing matched.
    expect(second.snapshot.counts).toEqual({
      dirsListed: 0,
      dirsRemembered: 0,
      filesHashed: 0,
      filesRemembered: 0,
      scopesRemembered: 1,
      pathsChecked: 4,
      lstatCalls: 4,
    });
    expect(second.result).toEqual(first.result);
  });

  it('walks a scope without a record from the cache: every listing and hash is remembered', async () => {
    const root = tree({ 'src/a.ts': 'a', 'src/sub/b.ts': 'b', 'docs/x.md': 'x' });
    const cache = StatCache.inMemory(root);
    const first = await scan(root, cache);
    // Another scope (another key): no record, but the same files and directories.
    const other = { ...SCOPE, exclude: ['**/*.md'] };
    const second = await scan(root, cache, LATER(), other);
    expect(second.snapshot.counts).toEqual({
      dirsListed: 0,
      dirsRemembered: 2,
      filesHashed: 0,
      filesRemembered: 2,
      scopesRemembered: 0,
      pathsChecked: 0,
      lstatCalls: 0,
    });
    expect(second.result.manifest).toEqual(first.result.manifest);
  });

  it('never descends where no glob can match (packages/a/docs is not even listed)', async () => {
    const root = tree({ 'packages/a/src/a.ts': 'a', 'packages/a/docs/deep/x.ts': 'x', 'packages/b/src/b.ts': 'b' });
    const scope = { ...SCOPE, sources: ['packages/*/src/**'] };
    const { snapshot, hashes } = await scan(root, StatCache.inMemory(root), LATER(), scope);
    expect(Object.keys(hashes)).toEqual(['packages/a/src/a.ts', 'packages/b/src/b.ts']);
    // packages, packages/a, packages/a/src, packages/b, packages/b/src: not docs nor docs/deep.
    expect(snapshot.counts.dirsListed).toBe(5);
  });

  it('skips an excluded tree without listing it, unless an artifact glob reaches into it', async () => {
    const root = tree({ 'src/a.ts': 'a', 'src/gen/deep/g.ts': 'g' });
    const scope = { ...SCOPE, exclude: ['src/gen/**'] };
    const excluded = await scan(root, StatCache.inMemory(root), LATER(), scope);
    expect(Object.keys(excluded.hashes)).toEqual(['src/a.ts']);
    expect(excluded.snapshot.counts.dirsListed).toBe(1);
    const snapshot = new Snapshot(root, { readStart: new Date() });
    const withArtifact = await scanScope(snapshot, { ...scope, artifacts: ['src/gen/deep/*.ts'] }, ['source', 'artifact']);
    expect(withArtifact.manifest.files.map((f) => [f[0], f[3]])).toEqual([
      ['src/a.ts', 'source'],
      ['src/gen/deep/g.ts', 'artifact'],
    ]);
  });

  it('an edit that keeps the size and puts the mtime back (utimes) is read again: ctime moved', async () => {
    const root = tree({ 'src/a.ts': 'aaaa' });
    const cache = StatCache.inMemory(root);
    await scan(root, cache);
    sameSizeEdit(join(root, 'src/a.ts'), 'bbbb');
    const { hashes, snapshot } = await scan(root, cache);
    expect(snapshot.counts.filesHashed).toBe(1);
    expect(hashes['src/a.ts']).toBe(sha256('bbbb'));
  });

  it('a file swapped by rename for another of the same size and mtime is read again: the inode differs', async () => {
    const root = tree({ 'src/a.ts': 'aaaa', 'other.txt': 'bbbb' });
    const cache = StatCache.inMemory(root);
    await scan(root, cache);
    execFileSync('touch', ['-r', join(root, 'src/a.ts'), join(root, 'other.txt')]);
    renameSync(join(root, 'other.txt'), join(root, 'src/a.ts'));
    const { hashes } = await scan(root, cache);
    expect(hashes['src/a.ts']).toBe(sha256('bbbb'));
  });

  it('a racy file (edited moments before the read) is not remembered, so a same-tick edit cannot hide', async () => {
    const root = tree({ 'src/a.ts': 'aaaa' });
    const cache = StatCache.inMemory(root);
    const now = new Date();
    const first = await scan(root, cache, now);
    expect(first.hashes['src/a.ts']).toBe(sha256('aaaa'));
    expect(cache.hash('src/a.ts', statSync(join(root, 'src/a.ts'), { bigint: true }))).toBeUndefined();
    // Whatever happens next, the file is read again.
    sameSizeEdit(join(root, 'src/a.ts'), 'bbbb');
    const second = await scan(root, cache, now);
    expect(second.snapshot.counts.filesHashed).toBe(1);
    expect(second.hashes['src/a.ts']).toBe(sha256('bbbb'));
  });

  it('a file added to a remembered directory appears: the directory stat moved', async () => {
    const root = tree({ 'src/a.ts': 'a' });
    const cache = StatCache.inMemory(root);
    await scan(root, cache);
    writeFileSync(join(root, 'src/new.ts'), 'n');
    const { hashes } = await scan(root, cache);
    expect(Object.keys(hashes)).toEqual(['src/a.ts', 'src/new.ts']);
  });

  it('a remembered file replaced by a FIFO is refused without blocking', async () => {
    const root = tree({ 'src/a.ts': 'a', 'src/b.ts': 'b' });
    const cache = StatCache.inMemory(root);
    await scan(root, cache);
    rmSync(join(root, 'src/b.ts'));
    execFileSync('mkfifo', [join(root, 'src/b.ts')]);
    const { result } = await scan(root, cache);
    expect(result.manifest.refused).toEqual([['src/b.ts', 'not_regular_file']]);
  });

  it('a remembered file replaced by a symlink leading outside is a path escape, not a cache hit', async () => {
    const root = tree({ 'src/a.ts': 'a' });
    const outside = tree({ 'secret.ts': 'a' });
    const cache = StatCache.inMemory(root);
    await scan(root, cache);
    rmSync(join(root, 'src/a.ts'));
    symlinkSync(join(outside, 'secret.ts'), join(root, 'src/a.ts'));
    const { result } = await scan(root, cache);
    expect(result.problems[0]).toMatchObject({ reason: 'path_escape', path: 'src/a.ts' });
    expect(result.manifest.files).toEqual([]);
  });

  it('a remembered directory replaced by a symlink to a look-alike tree outside is a path escape', async () => {
    const root = tree({ 'src/a.ts': 'a' });
    const outside = tree({ 'a.ts': 'evil' });
    const cache = StatCache.inMemory(root);
    await scan(root, cache);
    renameSync(join(root, 'src'), join(root, 'src-old'));
    symlinkSync(outside, join(root, 'src'));
    const { result } = await scan(root, cache);
    expect(result.problems[0]).toMatchObject({ reason: 'path_escape', path: 'src' });
    expect(result.manifest.files).toEqual([]);
  });

  it('a credential-shaped file is refused before the cache is asked', async () => {
    const root = tree({ 'src/a.ts': 'a', 'src/.env': 'TOKEN=1' });
    const cache = StatCache.inMemory(root);
    await scan(root, cache);
    const { result } = await scan(root, cache);
    expect(result.manifest.refused).toEqual([['src/.env', 'credential']]);
    expect(cache.size).toBe(2); // src/ and src/a.ts: never the credential
  });

  it('names files relative to the working directory when that is the root, with the same results', async () => {
    const root = tree({ 'src/a.ts': 'a', 'src/sub/b.ts': 'b', 'src/.env': 'x' });
    const outside = tree({ 'secret.ts': 's' });
    symlinkSync(join(outside, 'secret.ts'), join(root, 'src/escape.ts'));
    const absolute = await scanScope(new Snapshot(root, { readStart: new Date() }), SCOPE, ['source']);
    const before = process.cwd();
    try {
      process.chdir(root);
      const relative = await scanScope(new Snapshot(root, { readStart: new Date(), relative: true, cache: StatCache.inMemory(root) }), SCOPE, ['source']);
      expect(relative).toEqual(absolute);
      // Asked for, but the working directory is elsewhere: absolute paths, the same answer.
      process.chdir(outside);
      const elsewhere = await scanScope(new Snapshot(root, { readStart: new Date(), relative: true }), SCOPE, ['source']);
      expect(elsewhere).toEqual(absolute);
    } finally {
      process.chdir(before);
    }
    expect(absolute.problems).toMatchObject([{ reason: 'path_escape', path: 'src/escape.ts' }]);
    expect(absolute.manifest.files.map((f) => f[0])).toEqual(['src/a.ts', 'src/sub/b.ts']);
  });

  it('a directory swapped for a link leading outside between listing and reading: the lean read is caught by the re-check, never hashed', async () => {
    const root = tree({ 'src/sub/a.ts': 'inside' });
    const outside = tree({ 'a.ts': 'secret' });
    const snapshot = new Snapshot(root, { cache: StatCache.inMemory(root), readStart: LATER() });
    expect(snapshot.list('src')).toMatchObject({ kind: 'ok', names: ['sub'] });
    expect(snapshot.list('src/sub')).toMatchObject({ kind: 'ok', names: ['a.ts'] });
    await new Promise((resolve) => setTimeout(resolve, 25));
    renameSync(join(root, 'src/sub'), join(root, 'src/sub-old'));
    symlinkSync(outside, join(root, 'src/sub'));
    const [outcome] = await snapshot.read([{ path: 'src/sub/a.ts', kind: 'file' }]);
    expect(outcome).toMatchObject({ kind: 'problem', reason: 'changed_during_hash' });
  });

  it('reads files the lean way only with a cache: without one, every read asks where its descriptor leads', async () => {
    const root = tree({ 'src/sub/a.ts': 'inside' });
    const outside = tree({ 'a.ts': 'secret' });
    const snapshot = new Snapshot(root, { readStart: new Date() });
    snapshot.list('src');
    snapshot.list('src/sub');
    renameSync(join(root, 'src/sub'), join(root, 'src/sub-old'));
    symlinkSync(outside, join(root, 'src/sub'));
    const [outcome] = await snapshot.read([{ path: 'src/sub/a.ts', kind: 'file' }]);
    expect(outcome).toMatchObject({ kind: 'problem', reason: 'changed_during_hash' });
  });

  it('judges several scopes against one listing and one read of each file', async () => {
    const root = tree({ 'src/a.ts': 'a', 'src/b.ts': 'b' });
    const snapshot = new Snapshot(root, { readStart: new Date() });
    await scanScope(snapshot, SCOPE, ['source']);
    await scanScope(snapshot, { ...SCOPE, sources: ['src/*.ts'] }, ['source']);
    expect(snapshot.counts).toMatchObject({ dirsListed: 1, filesHashed: 2 });
  });
});
