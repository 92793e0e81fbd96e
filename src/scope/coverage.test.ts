import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coverScopes } from './coverage.js';
import { scanScope, type ScopeDecl } from './scan.js';
import { Snapshot } from './snapshot.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A pytest-shaped project: code under src/, tests under tests/, a secret the scan refuses. */
function project(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'vouch-coverage-')));
  dirs.push(root);
  for (const file of [
    'pyproject.toml',
    'src/pkg/__init__.py',
    'src/pkg/core.py',
    'tests/test_core.py',
    'tests/conftest.py',
    'tests/data/case.json',
    'dist/pkg.py',
    '.env',
  ]) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), file);
  }
  return root;
}

const scope = (decl: Partial<ScopeDecl>): ScopeDecl => ({ sources: [], tests: [], artifacts: [], exclude: [], allowMissing: false, ...decl });
const snapshot = (root: string) => new Snapshot(root, { readStart: new Date() });

describe('grouping: tests are tried before sources', () => {
  it('a file matched by both a sources glob and a tests glob is a test, so neither glob is empty', async () => {
    const root = project();
    const scan = await scanScope(snapshot(root), scope({ sources: ['**/*.py'], tests: ['tests/**'], exclude: ['dist/**'] }), ['source', 'test']);
    expect(scan.manifest.files.map(([path, , , group]) => [path, group])).toEqual([
      ['src/pkg/__init__.py', 'source'],
      ['src/pkg/core.py', 'source'],
      ['tests/conftest.py', 'test'],
      ['tests/data/case.json', 'test'],
      ['tests/test_core.py', 'test'],
    ]);
    expect(scan.problems).toEqual([]);
  });

  it('a sources glob whose files all went to tests is scope_empty, and the detail says where they went', async () => {
    const root = project();
    const scan = await scanScope(snapshot(root), scope({ sources: ['tests/*.py'], tests: ['**/*.py'] }), ['source', 'test']);
    expect(scan.problems).toEqual([
      {
        reason: 'scope_empty',
        path: 'tests/*.py',
        detail: 'source glob "tests/*.py" matched no readable file of its own: the 2 it matches went to tests, whose globs are tried first',
      },
    ]);
  });
});

describe('coverScopes', () => {
  it('counts, for every glob, the files it matches and how many stayed in its group', async () => {
    const root = project();
    const [coverage] = await coverScopes(snapshot(root), [scope({ sources: ['**/*.py', 'pyproject.toml'], tests: ['tests/**'], exclude: ['dist/**'] })]);
    expect(coverage!.globs).toEqual([
      { field: 'tests', glob: 'tests/**', matched: 3, kept: 3, lostTo: [] },
      { field: 'sources', glob: '**/*.py', matched: 4, kept: 2, lostTo: ['test'] },
      { field: 'sources', glob: 'pyproject.toml', matched: 1, kept: 1, lostTo: [] },
    ]);
    expect(coverage!.warnings).toEqual([]);
  });

  it('warns about a glob whose files all went to another group (glob_shadowed) and one that matches nothing (glob_empty)', async () => {
    const root = project();
    const [coverage] = await coverScopes(snapshot(root), [scope({ sources: ['tests/**', 'tests/*.py', 'src', 'src/**'], tests: ['**/*.py'] })]);
    // tests/** keeps tests/data/case.json, which no tests glob matches.
    expect(coverage!.warnings).toEqual([
      { reason: 'glob_shadowed', field: 'sources', glob: 'tests/*.py', matched: 2, lostTo: ['test'] },
      { reason: 'glob_empty', field: 'sources', glob: 'src', credentials: [] },
      { reason: 'glob_shadowed', field: 'sources', glob: 'src/**', matched: 2, lostTo: ['test'] },
    ]);
  });

  it('a glob matching only excluded or refused files is empty; allow_missing silences that, never a shadowed glob', async () => {
    const root = project();
    const decl = { sources: ['dist/**', '.env', 'src/**'], tests: ['src/pkg/core.py'], exclude: ['dist/**'] };
    const [strict, lenient] = await coverScopes(snapshot(root), [scope(decl), scope({ ...decl, allowMissing: true })]);
    expect(strict!.warnings.map((w) => `${w.reason} ${w.glob}`)).toEqual(['glob_empty dist/**', 'glob_empty .env']);
    expect(strict!.manifest.refused).toEqual([['.env', 'credential']]);
    // The credential-shaped file a glob names is said, so the warning can say why it never matches.
    expect(strict!.warnings.find((w) => w.glob === '.env')).toMatchObject({ credentials: ['.env'] });
    const [shadowing] = await coverScopes(snapshot(root), [scope({ sources: ['tests/**'], tests: ['tests/**'], allowMissing: true })]);
    expect(lenient!.warnings).toEqual([]);
    expect(shadowing!.warnings.map((w) => w.reason)).toEqual(['glob_shadowed']);
  });

  it('an artifact glob that matches nothing yet is no warning; one whose files are sources already is', async () => {
    const root = project();
    const [coverage] = await coverScopes(snapshot(root), [scope({ sources: ['**/*.py'], artifacts: ['dist/*.py', 'out/**'] })]);
    expect(coverage!.warnings).toEqual([{ reason: 'glob_shadowed', field: 'artifacts', glob: 'dist/*.py', matched: 1, lostTo: ['source'] }]);
  });

  it('an input glob is never a warning: one that matches nothing counts when its file appears; one whose files a tests glob matches too keeps them', async () => {
    const root = project();
    const [coverage] = await coverScopes(snapshot(root), [
      scope({ inputs: ['pytest.ini', 'pyproject.toml', '**/conftest.py'], sources: ['src/**'], tests: ['tests/**'], exclude: ['tests/conftest.py'] }),
    ]);
    expect(coverage!.warnings).toEqual([]);
    expect(coverage!.globs.slice(0, 3)).toEqual([
      { field: 'inputs', glob: 'pytest.ini', matched: 0, kept: 0, lostTo: [] },
      { field: 'inputs', glob: 'pyproject.toml', matched: 1, kept: 1, lostTo: [] },
      { field: 'inputs', glob: '**/conftest.py', matched: 1, kept: 1, lostTo: [] },
    ]);
    expect(coverage!.manifest.files.filter((f) => f[3] === 'input').map((f) => f[0])).toEqual(['pyproject.toml', 'tests/conftest.py']);
  });
});
