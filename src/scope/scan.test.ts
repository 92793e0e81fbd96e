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
  { scope: scope({ sources: ['src/util/a.ts', 'src/util/**', '.github/**'], artifacts: ['src/gen/*.ts'], exclude: ['src/**'] }), groups: ['source', 'artifact'] },
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
