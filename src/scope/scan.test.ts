import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StatCache } from '../cache/stat-cache.js';
import { scanScope, scanScopes, type ScopeDecl, type ScopeRequest } from './scan.js';
import { Snapshot } from './snapshot.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tree(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-scan-')));
  dirs.push(root);
  const files = [
    'package.json',
    'src/index.ts',
    'src/util/a.ts',
    'src/util/a.test.ts',
    'src/gen/out.ts',
    'src/.env',
    'test/unit/x.test.ts',
    'test/fixtures/data.json',
    'node_modules/dep/index.js',
    'packages/one/src/main.ts',
    'packages/one/docs/readme.md',
    'packages/two/src/deep/er/main.ts',
    'packages/two/node_modules/x/y.js',
    'dist/bundle.js',
    'docs/guide.md',
    '.github/workflows/ci.yml',
  ];
  for (const file of files) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), file);
  }
  symlinkSync('src', join(root, 'linked-src'));
  symlinkSync('../../../src/index.ts', join(root, 'packages/one/src/link.ts'));
  return root;
}

const scope = (decl: Partial<ScopeDecl>): ScopeDecl => ({ sources: [], tests: [], artifacts: [], exclude: [], allowMissing: true, ...decl });

const REQUESTS: ScopeRequest[] = [
  { scope: scope({ sources: ['src/**'], tests: ['test/**'], exclude: ['src/gen/**', '**/*.test.ts'] }), groups: ['source', 'test'] },
  { scope: scope({ sources: ['**/*.ts', 'package.json'], exclude: ['test/fixtures/**'] }), groups: ['source', 'test'] },
  { scope: scope({ sources: ['**/*.js'] }), groups: ['source'] },
  { scope: scope({ sources: ['node_modules/**', 'dist/bundle.js'], artifacts: ['dist/**'] }), groups: ['source', 'artifact'] },
  { scope: scope({ sources: ['packages/*/src/**'], tests: ['packages/*/test/**'] }), groups: ['source', 'test'] },
  { scope: scope({ sources: ['linked-src/**', 'docs/*.md'] }), groups: ['source'] },
  {
    scope: scope({ sources: ['src/util/a.ts', 'src/util/**', '.github/**'], artifacts: ['src/gen/*.ts'], exclude: ['src/**'] }),
    groups: ['source', 'artifact'],
  },
  { scope: scope({ sources: ['does/not/exist/**'], allowMissing: false }), groups: ['source'] },
];

describe('scanScopes', () => {
  it('gives each scope exactly what a walk of its own gives it, in one walk', async () => {
    const root = tree();
    const alone = [];
    for (const request of REQUESTS) alone.push(await scanScope(new Snapshot(root, { readStart: new Date() }), request.scope, request.groups));
    const together = await scanScopes(new Snapshot(root, { readStart: new Date() }), REQUESTS);
    expect(together).toEqual(alone);
    // The fixture exercises what it claims to.
    expect(alone[2]!.manifest.files.map((f) => f[0])).toEqual(['dist/bundle.js']);
    expect(alone[3]!.manifest.files.map((f) => [f[0], f[3]])).toEqual([
      ['dist/bundle.js', 'source'],
      ['node_modules/dep/index.js', 'source'],
    ]);
    expect(alone[5]!.manifest.refused).toEqual([['linked-src', 'symlink_to_directory']]);
    expect(alone[6]!.manifest.files.map((f) => [f[0], f[3]])).toEqual([
      ['.github/workflows/ci.yml', 'source'],
      ['src/gen/out.ts', 'artifact'],
    ]);
    expect(alone[7]!.problems).toMatchObject([{ reason: 'scope_empty' }]);
  });

  it('reads each file once however many scopes cover it', async () => {
    const root = tree();
    const snapshot = new Snapshot(root, { readStart: new Date(), cache: StatCache.inMemory(root) });
    const results = await scanScopes(snapshot, REQUESTS);
    expect(new Set(results.flatMap((r) => r.manifest.files.map((f) => f[0]))).size).toBe(14);
    // Every file any scope covers, once: 13 files and the link (read through to its target).
    expect(snapshot.counts.filesHashed).toBe(14);
  });

  it('scans more scopes than one bit mask holds', async () => {
    const root = tree();
    const many = Array.from({ length: 70 }, (_, i) => REQUESTS[i % REQUESTS.length]!);
    const results = await scanScopes(new Snapshot(root, { readStart: new Date() }), many);
    const alone = await scanScopes(new Snapshot(root, { readStart: new Date() }), REQUESTS);
    results.forEach((result, i) => expect(result).toEqual(alone[i % REQUESTS.length]));
  });
});

describe('inputs: the files that decide what the command does', () => {
  function project(): string {
    const root = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-scan-inputs-')));
    dirs.push(root);
    const files: Record<string, string> = {
      'package.json': '{"scripts":{"test":"node --test"}}',
      '.npmrc': 'script-shell=/bin/sh\n//registry.npmjs.org/:_authToken=npm_secret\n',
      'src/a.js': 'a',
      'tests/conftest.py': 'import pytest',
      'tests/test_a.py': 'def test_a(): pass',
      'vendor/conftest.py': 'x',
      'node_modules/dep/conftest.py': 'x',
    };
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, file)), { recursive: true });
      writeFileSync(join(root, file), text);
    }
    return root;
  }
  const scan = (root: string, decl: Partial<ScopeDecl>, groups: ScopeRequest['groups'] = ['input', 'source', 'test']) =>
    scanScope(new Snapshot(root, { readStart: new Date() }), scope({ allowMissing: false, ...decl }), groups);
  const listed = (result: { manifest: { files: readonly (readonly [string, string, number, string])[] } }) => result.manifest.files.map((f) => [f[0], f[3]]);

  it('are their own group, tried before tests and sources; exclude never removes one; node_modules is not walked for them', async () => {
    const root = project();
    const result = await scan(root, { inputs: ['package.json', '**/conftest.py'], sources: ['**/*.js'], tests: ['tests/**'], exclude: ['vendor/**'] });
    expect(result.problems).toEqual([]);
    expect(listed(result)).toEqual([
      ['package.json', 'input'],
      ['src/a.js', 'source'],
      ['tests/conftest.py', 'input'],
      ['tests/test_a.py', 'test'],
      ['vendor/conftest.py', 'input'],
    ]);
  });

  it('may match nothing, whatever allow_missing says: no scope_empty (a file that appears later counts)', async () => {
    const root = project();
    const result = await scan(root, { inputs: ['pytest.ini', 'pyproject.toml', 'deep/down/Makefile'], sources: ['src/**'] });
    expect(result.problems).toEqual([]);
    expect(listed(result)).toEqual([['src/a.js', 'source']]);
    writeFileSync(join(root, 'pytest.ini'), '[pytest]\naddopts = --co\n');
    expect(listed(await scan(root, { inputs: ['pytest.ini'], sources: ['src/**'] }))).toEqual([
      ['pytest.ini', 'input'],
      ['src/a.js', 'source'],
    ]);
  });

  it('a credential-shaped input (.npmrc) is hashed, its digest in the manifest; a source glob that names it still refuses it', async () => {
    const root = project();
    const asInput = await scan(root, { inputs: ['.npmrc'], sources: ['src/**'] });
    const npmrc = asInput.manifest.files.find((f) => f[0] === '.npmrc');
    expect(npmrc?.[3]).toBe('input');
    expect(npmrc?.[1]).toMatch(/^[0-9a-f]{64}$/);
    expect(asInput.manifest.refused).toEqual([]);
    // Only the digest: nothing of the file's text is in the result.
    expect(JSON.stringify(asInput)).not.toContain('npm_secret');
    const stray = await scan(root, { sources: ['**'] }, ['source']);
    expect(stray.manifest.files.map((f) => f[0])).not.toContain('.npmrc');
    expect(stray.manifest.refused).toContainEqual(['.npmrc', 'credential']);
  });

  it("in one walk, a file that is one scope's input and another's stray source is hashed for the first and refused for the second", async () => {
    const root = project();
    const requests: ScopeRequest[] = [
      { scope: scope({ sources: ['**'] }), groups: ['input', 'source', 'test'] },
      { scope: scope({ inputs: ['.npmrc'], sources: ['src/**'] }), groups: ['input', 'source', 'test'] },
      { scope: scope({ sources: ['.npmrc', 'src/**'] }), groups: ['input', 'source', 'test'] },
    ];
    const snapshot = new Snapshot(root, { readStart: new Date(), cache: StatCache.inMemory(root) });
    const [stray, input, named] = await scanScopes(snapshot, requests);
    expect(stray!.manifest.refused).toContainEqual(['.npmrc', 'credential']);
    expect(input!.manifest.files.find((f) => f[0] === '.npmrc')?.[3]).toBe('input');
    expect(named!.manifest.refused).toContainEqual(['.npmrc', 'credential']);
    expect(named!.problems).toEqual([]);
    // A later scan in the same snapshot that wants it, after one that refused it, still reads it.
    const again = await scanScopes(snapshot, [
      { scope: scope({ sources: ['.npmrc'] }), groups: ['source'] },
      { scope: scope({ inputs: ['.npmrc'] }), groups: ['input'] },
    ]);
    expect(again[0]!.manifest.refused).toEqual([['.npmrc', 'credential']]);
    expect(again[1]!.manifest.files.map((f) => f[0])).toEqual(['.npmrc']);
  });

  it('a link an input names, to a credential-shaped file, is hashed for it even after a scan that refused it', async () => {
    const root = project();
    symlinkSync('.npmrc', join(root, 'npm-settings'));
    const snapshot = new Snapshot(root, { readStart: new Date() });
    const [stray] = await scanScopes(snapshot, [{ scope: scope({ sources: ['npm-settings'] }), groups: ['source'] }]);
    expect(stray!.manifest.refused).toEqual([['npm-settings', 'credential']]);
    const [input] = await scanScopes(snapshot, [{ scope: scope({ inputs: ['npm-settings'] }), groups: ['input'] }]);
    expect(input!.manifest.files.map((f) => [f[0], f[3]])).toEqual([['npm-settings', 'input']]);
  });

  it('are left out when the input group is not asked for', async () => {
    const root = project();
    const result = await scan(root, { inputs: ['package.json'], sources: ['src/**'] }, ['source', 'test']);
    expect(listed(result)).toEqual([['src/a.js', 'source']]);
  });
});
