import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeRecord, encodeRecord, recordPath } from '../cache/scope-record.js';
import { cacheKey } from '../cache/key.js';
import { StatCache } from '../cache/stat-cache.js';
import { sha256 } from '../core/digest.js';
import type { Group } from './manifest.js';
import { scopeKey } from './remembered.js';
import { scanScopes, type ScopeDecl } from './scan.js';
import { Snapshot } from './snapshot.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-remembered-')));
  dirs.push(root);
  write(root, files);
  return root;
}

function write(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

const scope = (over: Partial<ScopeDecl> = {}): ScopeDecl => ({ sources: ['src/**'], tests: [], artifacts: [], exclude: [], allowMissing: false, ...over });
const SOURCES: readonly Group[] = ['source'];
// Entries are remembered only when older than the racy margin; a test's
// files are not, so most scans here read "ten minutes from now".
const LATER = () => new Date(Date.now() + 600_000);
/** Longer than the kernel's coarse timestamp tick, so that a change moves the stats a test compares. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 25));

async function scanWith(root: string, cache: StatCache | undefined, scopes: readonly ScopeDecl[], readStart = LATER()) {
  const snapshot = new Snapshot(root, { readStart, ...(cache && { cache }) });
  const results = await scanScopes(
    snapshot,
    scopes.map((s) => ({ scope: s, groups: SOURCES })),
  );
  // Plain data, whatever answered: the manifest getter of a remembered result is read here.
  return { counts: snapshot.counts, results: results.map((r) => ({ manifest: r.manifest, problems: r.problems })) };
}

/** The scan a fresh process without any cache would make: the oracle every remembered answer must equal. */
const fresh = async (root: string, scopes: readonly ScopeDecl[]) => (await scanWith(root, undefined, scopes, new Date())).results;

describe('a remembered scope', () => {
  it("overlapping scopes are checked in one batch, each shared entry lstat'ed once; an edit in one scope alone walks that scope alone", async () => {
    const root = tree({ 'src/a.ts': 'a', 'src/pkg/b.ts': 'b', 'src/pkg/c.ts': 'c', 'docs/d.md': 'd' });
    const cache = StatCache.inMemory(root);
    const whole = scope({ sources: ['src/**'] });
    const pkg = scope({ sources: ['src/pkg/**'] });
    const both = scope({ sources: ['src/pkg/**', 'docs/**'] });
    await scanWith(root, cache, [whole, pkg, both]);
    const warm = await scanWith(root, cache, [whole, pkg, both]);
    expect(warm.counts.scopesRemembered).toBe(3);
    // One lstat per entry of the union of the three records, which name the shared ones two or three times.
    const names = [whole, pkg, both].map((s) => {
      const record = cache.records.get(scopeKey({ scope: s, groups: SOURCES }))!;
      return Array.from({ length: record.count }, (_, i) => recordPath(record, i));
    });
    expect(names.flat()).toContain('src/pkg/b.ts');
    expect(warm.counts.pathsChecked).toBe(names.flat().length);
    expect(warm.counts.lstatCalls).toBe(new Set(names.flat()).size);
    expect(warm.counts.lstatCalls).toBeLessThan(warm.counts.pathsChecked - 3);
    await tick();
    // Only in `whole`: the other two are still answered from their records.
    write(root, { 'src/a.ts': 'edited' });
    const edited = await scanWith(root, cache, [whole, pkg, both]);
    expect(edited.counts.scopesRemembered).toBe(2);
    expect(edited.results).toEqual(await fresh(root, [whole, pkg, both]));
    await tick();
    // Shared by all three: none is answered from a record.
    write(root, { 'src/pkg/b.ts': 'edited too' });
    const shared = await scanWith(root, cache, [whole, pkg, both]);
    expect(shared.counts.scopesRemembered).toBe(0);
    expect(shared.results).toEqual(await fresh(root, [whole, pkg, both]));
  });

  it("a file added inside a glob's directory is found: the directory stat moved, so the scope is walked", async () => {
    const root = tree({ 'src/a.ts': 'a', 'src/sub/b.ts': 'b' });
    const cache = StatCache.inMemory(root);
    await scanWith(root, cache, [scope()]);
    await tick();
    write(root, { 'src/sub/new.ts': 'n' });
    const again = await scanWith(root, cache, [scope()]);
    expect(again.counts.scopesRemembered).toBe(0);
    expect(again.results[0]!.manifest.files.map((f) => f[0])).toEqual(['src/a.ts', 'src/sub/b.ts', 'src/sub/new.ts']);
    expect(again.results).toEqual(await fresh(root, [scope()]));
    // Learnt again: the next call is answered by the new record.
    expect((await scanWith(root, cache, [scope()])).counts.scopesRemembered).toBe(1);
  });

  it('a new directory with files, where a glob could match, is found', async () => {
    const root = tree({ 'packages/a/src/a.ts': 'a' });
    const s = scope({ sources: ['packages/*/src/**'] });
    const cache = StatCache.inMemory(root);
    await scanWith(root, cache, [s]);
    await tick();
    write(root, { 'packages/b/src/deep/b.ts': 'b' });
    const again = await scanWith(root, cache, [s]);
    expect(again.results[0]!.manifest.files.map((f) => f[0])).toEqual(['packages/a/src/a.ts', 'packages/b/src/deep/b.ts']);
  });

  it('a file removed is gone from the answer', async () => {
    const root = tree({ 'src/a.ts': 'a', 'src/sub/b.ts': 'b' });
    const cache = StatCache.inMemory(root);
    await scanWith(root, cache, [scope()]);
    await tick();
    rmSync(join(root, 'src/sub/b.ts'));
    const again = await scanWith(root, cache, [scope()]);
    expect(again.counts.scopesRemembered).toBe(0);
    expect(again.results[0]!.manifest.files.map((f) => f[0])).toEqual(['src/a.ts']);
  });

  it('a base that did not exist, created later, is found (its parent was remembered)', async () => {
    const root = tree({ 'src/a.ts': 'a' });
    const s = scope({ sources: ['src/**', 'docs/guide/**'], allowMissing: true });
    const cache = StatCache.inMemory(root);
    const first = await scanWith(root, cache, [s]);
    expect(first.results[0]!.manifest.files).toHaveLength(1);
    expect((await scanWith(root, cache, [s])).counts.scopesRemembered).toBe(1);
    await tick();
    write(root, { 'docs/guide/intro.md': 'x' });
    const again = await scanWith(root, cache, [s]);
    expect(again.results[0]!.manifest.files.map((f) => f[0])).toEqual(['docs/guide/intro.md', 'src/a.ts']);
  });

  it('a literal path that was absent, created later, is found', async () => {
    const root = tree({ 'src/a.ts': 'a' });
    const s = scope({ sources: ['src/**', 'package.json'] });
    const cache = StatCache.inMemory(root);
    const first = await scanWith(root, cache, [s]);
    expect(first.results[0]!.problems).toMatchObject([{ reason: 'scope_empty', path: 'package.json' }]);
    await tick();
    write(root, { 'package.json': '{}' });
    const again = await scanWith(root, cache, [s]);
    expect(again.results[0]!.problems).toEqual([]);
    expect(again.results).toEqual(await fresh(root, [s]));
  });

  it('a file edited within the same second as it was read (racy) is never answered from memory', async () => {
    const root = tree({ 'src/a.ts': 'aaaa' });
    const cache = StatCache.inMemory(root);
    // Read now, as a real call would: the file is seconds old, so nothing of it is remembered.
    const now = new Date();
    await scanWith(root, cache, [scope()], now);
    // Same size, mtime put back to the nanosecond: only ctime could tell, and it is not remembered.
    execFileSync('touch', ['-r', join(root, 'src/a.ts'), join(root, 'ref')]);
    writeFileSync(join(root, 'src/a.ts'), 'bbbb');
    execFileSync('touch', ['-r', join(root, 'ref'), join(root, 'src/a.ts')]);
    const again = await scanWith(root, cache, [scope()], now);
    expect(again.counts.scopesRemembered).toBe(0);
    expect(again.results[0]!.manifest.files[0]![1]).toBe(sha256('bbbb'));
  });

  it('a file added within the same tick as its directory was read is found (a racy directory is not remembered)', async () => {
    const root = tree({ 'src/a.ts': 'a' });
    const cache = StatCache.inMemory(root);
    const now = new Date();
    await scanWith(root, cache, [scope()], now);
    write(root, { 'src/b.ts': 'b' });
    const again = await scanWith(root, cache, [scope()], now);
    expect(again.results[0]!.manifest.files.map((f) => f[0])).toEqual(['src/a.ts', 'src/b.ts']);
  });

  it('a symlink swapped in for a remembered file is judged by its target, never answered from memory', async () => {
    const root = tree({ 'src/a.ts': 'same', 'elsewhere/a.ts': 'same' });
    const cache = StatCache.inMemory(root);
    await scanWith(root, cache, [scope()]);
    await tick();
    rmSync(join(root, 'src/a.ts'));
    symlinkSync('../elsewhere/a.ts', join(root, 'src/a.ts'));
    const again = await scanWith(root, cache, [scope()]);
    expect(again.counts.scopesRemembered).toBe(0);
    expect(again.results).toEqual(await fresh(root, [scope()]));
    // A scope with a link in it is not remembered: every call looks at the link again.
    expect((await scanWith(root, cache, [scope()])).counts.scopesRemembered).toBe(0);
  });

  it('a directory on the way to a base swapped for a link to itself (same inodes below) is refused, not answered from memory', async () => {
    const root = tree({ 'a/b/src/x.ts': 'x' });
    const s = scope({ sources: ['a/b/src/**'] });
    const cache = StatCache.inMemory(root);
    await scanWith(root, cache, [s]);
    expect((await scanWith(root, cache, [s])).counts.scopesRemembered).toBe(1);
    await tick();
    // Every file below keeps its inode and stat; only "a" is now a link.
    renameSync(join(root, 'a'), join(root, 'real-a'));
    symlinkSync('real-a', join(root, 'a'));
    const again = await scanWith(root, cache, [s]);
    expect(again.counts.scopesRemembered).toBe(0);
    expect(again.results[0]!.manifest.refused).toEqual([['a', 'symlink_to_directory']]);
    expect(again.results).toEqual(await fresh(root, [s]));
  });

  it('a chmod, a rename over a file, and a FIFO in place of a file each move a stat', async () => {
    const root = tree({ 'src/a.ts': 'aaaa', 'src/b.ts': 'bbbb', 'src/c.ts': 'cccc', 'spare.ts': 'dddd' });
    const cache = StatCache.inMemory(root);
    await scanWith(root, cache, [scope()]);
    for (const change of [
      () => chmodSync(join(root, 'src/a.ts'), 0o755),
      () => renameSync(join(root, 'spare.ts'), join(root, 'src/b.ts')),
      () => {
        rmSync(join(root, 'src/c.ts'));
        execFileSync('mkfifo', [join(root, 'src/c.ts')]);
      },
    ]) {
      await tick();
      change();
      const again = await scanWith(root, cache, [scope()]);
      expect(again.counts.scopesRemembered).toBe(0);
      expect(again.results).toEqual(await fresh(root, [scope()]));
    }
  });

  it("a check's scope changed (another glob, exclude or allow_missing) is another record: walked, never the old answer", async () => {
    const root = tree({ 'src/a.ts': 'a', 'src/gen/g.ts': 'g' });
    const cache = StatCache.inMemory(root);
    await scanWith(root, cache, [scope()]);
    for (const changed of [
      scope({ exclude: ['src/gen/**'] }),
      scope({ sources: ['src/*.ts'] }),
      scope({ allowMissing: true }),
      scope({ tests: ['src/gen/**'] }),
    ]) {
      const again = await scanWith(root, cache, [changed]);
      expect(again.counts.scopesRemembered).toBe(0);
      expect(again.results).toEqual(await fresh(root, [changed]));
    }
  });

  it('answers the unchanged scope from memory while an overlapping one that changed is walked', async () => {
    const root = tree({ 'src/a.ts': 'a', 'test/t.ts': 't' });
    const scopes = [scope({ sources: ['src/**'] }), scope({ sources: ['src/**', 'test/**'] })];
    const cache = StatCache.inMemory(root);
    await scanWith(root, cache, scopes);
    await tick();
    write(root, { 'test/t.ts': 'changed' });
    const again = await scanWith(root, cache, scopes);
    expect(again.counts.scopesRemembered).toBe(1);
    expect(again.results).toEqual(await fresh(root, scopes));
  });

  it('gives exactly the answer of a fresh scan after every one of many random changes', async () => {
    let state = 20261201;
    const rand = (n: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state % n;
    };
    const names = ['a.ts', 'b.js', 'c.md', '.env', 'd.ts'];
    const folders = ['src', 'src/x', 'src/x/y', 'test', 'src/z', 'lib'];
    const root = tree({ 'src/a.ts': '1', 'test/b.js': '2', 'lib/c.md': '3' });
    const scopes = [
      scope({ sources: ['src/**'], exclude: ['**/*.md'] }),
      scope({ sources: ['src/**/*.ts', 'lib/**'] }),
      scope({ sources: ['src/**', 'test/**', 'lib/c.md'], allowMissing: true }),
    ];
    const cache = StatCache.inMemory(root);
    let remembered = 0;
    for (let step = 0; step < 40; step++) {
      const path = `${folders[rand(folders.length)]}/${names[rand(names.length)]}`;
      const absolute = join(root, path);
      switch (rand(6)) {
        case 0:
        case 1:
          write(root, { [path]: String(rand(1000)) });
          break;
        case 2:
          rmSync(absolute, { force: true });
          break;
        case 3:
          rmSync(join(root, folders[rand(folders.length)]!), { recursive: true, force: true });
          break;
        case 4:
          mkdirSync(dirname(absolute), { recursive: true });
          rmSync(absolute, { recursive: true, force: true });
          symlinkSync('../a.ts', absolute);
          break;
        case 5:
          break; // no change: the records must answer
      }
      const remembering = await scanWith(root, cache, scopes);
      remembered += remembering.counts.scopesRemembered;
      expect(remembering.results, `step ${step}`).toEqual(await fresh(root, scopes));
      await tick();
    }
    expect(remembered).toBeGreaterThan(0);
  });
});

describe('records on disk', () => {
  function workspace() {
    const root = tree({ 'src/a.ts': 'aaaa', 'src/b.ts': 'bbbb' });
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-remembered-home-')));
    dirs.push(home);
    mkdirSync(join(root, '.vouch'));
    const key = scopeKey({ scope: scope(), groups: SOURCES });
    return { root, state: join(root, '.vouch'), key: cacheKey(home)!, file: join(root, '.vouch', 'scopes', key), scopeKey: key };
  }

  it('are saved one file per scope and answer the next process without reading the stat cache; nothing is written again', async () => {
    const ws = workspace();
    const first = StatCache.open(ws.state, ws.root, ws.key);
    await scanWith(ws.root, first, [scope()]);
    first.save();
    const before = readFileSync(ws.file);
    const statcache = readFileSync(join(ws.state, 'statcache'));
    // The stat cache replaced by garbage: a remembered scope never reads it.
    writeFileSync(join(ws.state, 'statcache'), 'garbage');
    const second = StatCache.open(ws.state, ws.root, ws.key);
    expect((await scanWith(ws.root, second, [scope()])).counts.scopesRemembered).toBe(1);
    second.save();
    expect(readFileSync(ws.file).equals(before)).toBe(true);
    expect(readFileSync(join(ws.state, 'statcache'), 'utf8')).toBe('garbage');
    expect(statcache.length).toBeGreaterThan(0);
  });

  it('a forged record (its files mapped to other hashes, MAC by another key) is never trusted', async () => {
    const ws = workspace();
    const cache = StatCache.open(ws.state, ws.root, ws.key);
    const honest = await scanWith(ws.root, cache, [scope()]);
    cache.save();
    const record = decodeRecord(readFileSync(ws.file), ws.key, ws.root, ws.scopeKey)!;
    expect(record.files).toBe(2);
    // What an agent would want: the files recorded with the hashes of other bytes.
    const forged = { ...record, digests: new Uint8Array(record.digests.length).fill(7) };
    writeFileSync(ws.file, encodeRecord(forged, ws.root, Buffer.alloc(32, 9)));
    const again = await scanWith(ws.root, StatCache.open(ws.state, ws.root, ws.key), [scope()]);
    expect(again.counts.scopesRemembered).toBe(0);
    expect(again.results).toEqual(honest.results);
    // Signed with the right key it would be believed: the key is the boundary (README, Security model).
    writeFileSync(ws.file, encodeRecord(forged, ws.root, ws.key));
    expect((await scanWith(ws.root, StatCache.open(ws.state, ws.root, ws.key), [scope()])).counts.scopesRemembered).toBe(1);
  });

  it("another scope's record copied over this one, or one from another workspace, is never trusted", async () => {
    const ws = workspace();
    const cache = StatCache.open(ws.state, ws.root, ws.key);
    await scanWith(ws.root, cache, [scope()]);
    cache.save();
    const blob = readFileSync(ws.file);
    expect(decodeRecord(blob, ws.key, ws.root, ws.scopeKey)).toBeDefined();
    expect(decodeRecord(blob, ws.key, ws.root, 'f'.repeat(32))).toBeUndefined();
    expect(decodeRecord(blob, ws.key, `${ws.root}-other`, ws.scopeKey)).toBeUndefined();
  });

  it('a damaged record is never trusted', async () => {
    const ws = workspace();
    const cache = StatCache.open(ws.state, ws.root, ws.key);
    await scanWith(ws.root, cache, [scope()]);
    cache.save();
    const blob = readFileSync(ws.file);
    for (const at of [0, 12, 40, Math.floor(blob.length / 2), blob.length - 40, blob.length - 1]) {
      const damaged = Buffer.from(blob);
      damaged[at]! ^= 0x10;
      writeFileSync(ws.file, damaged);
      expect(decodeRecord(damaged, ws.key, ws.root, ws.scopeKey), `byte ${at}`).toBeUndefined();
      expect((await scanWith(ws.root, StatCache.open(ws.state, ws.root, ws.key), [scope()])).counts.scopesRemembered, `byte ${at}`).toBe(0);
    }
    for (const length of [0, 31, blob.length - 1]) {
      expect(decodeRecord(blob.subarray(0, length), ws.key, ws.root, ws.scopeKey), `length ${length}`).toBeUndefined();
    }
  });
});

describe('a remembered scope with inputs', () => {
  const ALL: readonly Group[] = ['input', 'source', 'test'];
  const withInputs = scope({ sources: ['src/**'], inputs: ['package.json', '.npmrc', '**/conftest.py'] });
  const scan = async (root: string, cache: StatCache | undefined, readStart = LATER()) => {
    const snapshot = new Snapshot(root, { readStart, ...(cache && { cache }) });
    const [result] = await scanScopes(snapshot, [{ scope: withInputs, groups: ALL }]);
    return { counts: snapshot.counts, result: { manifest: result!.manifest, problems: result!.problems } };
  };

  it('keeps the input group (and a credential-shaped input read as one) through its record, and a new input file (none matched before) is seen', async () => {
    const root = tree({ 'src/a.ts': 'a', 'package.json': '{}', '.npmrc': 'x=1' });
    const cache = StatCache.inMemory(root);
    const cold = await scan(root, cache);
    const warm = await scan(root, cache);
    expect(warm.counts.scopesRemembered).toBe(1);
    expect(warm.result).toEqual(cold.result);
    expect(warm.result.manifest.files.map((f) => [f[0], f[3]])).toEqual([
      ['.npmrc', 'input'],
      ['package.json', 'input'],
      ['src/a.ts', 'source'],
    ]);
    await tick();
    write(root, { 'tests/conftest.py': 'import pytest' });
    const appeared = await scan(root, cache);
    expect(appeared.counts.scopesRemembered).toBe(0);
    expect(appeared.result.manifest.files.map((f) => f[0])).toContain('tests/conftest.py');
    expect(appeared.result).toEqual((await scan(root, undefined, new Date())).result);
  });

  it('a scope with inputs has a key of its own: the record of the same scope without them never answers it', () => {
    const plain = scopeKey({ scope: scope({ sources: ['src/**'] }), groups: ALL });
    expect(scopeKey({ scope: withInputs, groups: ALL })).not.toBe(plain);
  });
});
