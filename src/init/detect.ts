import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scanScope } from '../scope/scan.js';
import { Snapshot } from '../scope/snapshot.js';

/** A proposed check, before the operator reviews it. */
export interface Proposal {
  readonly id: string;
  readonly run: readonly string[];
  readonly sources: readonly string[];
  readonly tests: readonly string[];
  readonly exclude: readonly string[];
  readonly proves: string;
  readonly block: boolean;
  readonly timeout?: number;
  /** Where the proposal came from, for the comment above it. */
  readonly from: string;
}

const NPM_PLACEHOLDER_TEST = /no test specified/;

/**
 * Proposes checks from what the project already declares. Each glob kept
 * matches at least one file now, so a fresh spec does not start UNKNOWN
 * (scope_empty); a proposal left with no scope is dropped.
 */
export async function detectChecks(root: string): Promise<Proposal[]> {
  const proposals = [...fromPackageJson(root), ...fromPython(root), ...fromGo(root), ...fromCargo(root), ...fromMakefile(root)];
  const snapshot = new Snapshot(root, { readStart: new Date() });
  const seen = new Set<string>();
  const kept: Proposal[] = [];
  for (const proposal of proposals) {
    const sources = await matching(snapshot, proposal.sources, proposal.exclude);
    const tests = await matching(snapshot, proposal.tests, proposal.exclude);
    if (sources.length + tests.length === 0 || seen.has(proposal.id)) continue;
    seen.add(proposal.id);
    kept.push({ ...proposal, sources, tests });
  }
  return kept;
}

async function matching(snapshot: Snapshot, globs: readonly string[], exclude: readonly string[]): Promise<string[]> {
  const kept: string[] = [];
  for (const glob of globs) {
    const scan = await scanScope(snapshot, { sources: [glob], tests: [], artifacts: [], exclude, allowMissing: false }, ['source']);
    if (scan.manifest.files.length > 0) kept.push(glob);
  }
  return kept;
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function firstExisting(root: string, dirs: readonly string[]): string[] {
  return dirs.filter((dir) => existsSync(join(root, dir)));
}

function fromPackageJson(root: string): Proposal[] {
  const pkg = readJson(join(root, 'package.json'));
  if (!pkg) return [];
  const scripts = (pkg.scripts ?? {}) as Record<string, string>;
  const srcDirs = firstExisting(root, ['src', 'lib', 'app', 'packages', 'bin']);
  const sources = [...(srcDirs.length > 0 ? srcDirs.map((dir) => `${dir}/**`) : ['**/*.{js,mjs,cjs,ts,mts,cts,jsx,tsx}']), 'package.json'];
  for (const lock of ['package-lock.json', 'pnpm-lock.yaml', 'yarn.lock']) if (existsSync(join(root, lock))) sources.push(lock);
  const tests = firstExisting(root, ['test', 'tests', '__tests__', 'spec']).map((dir) => `${dir}/**`);
  const config = ['tsconfig.json', 'eslint.config.js', 'eslint.config.mjs', 'vitest.config.ts', 'jest.config.js'].filter((f) => existsSync(join(root, f)));
  const exclude = ['**/node_modules/**', 'dist/**', 'build/**', 'coverage/**'];
  const runner = existsSync(join(root, 'pnpm-lock.yaml')) ? 'pnpm' : existsSync(join(root, 'yarn.lock')) ? 'yarn' : 'npm';
  const script = (name: string) => (runner === 'npm' ? ['npm', 'run', '--silent', name] : [runner, 'run', name]);
  const out: Proposal[] = [];
  if (scripts.test && !NPM_PLACEHOLDER_TEST.test(scripts.test)) {
    out.push({ id: 'tests', run: runner === 'npm' ? ['npm', 'test'] : [runner, 'test'], sources: [...sources, ...config], tests, exclude, block: true, timeout: 600, proves: 'The test suite passes on the declared sources and tests.', from: 'package.json scripts.test' });
  }
  for (const name of ['typecheck', 'lint', 'build'] as const) {
    if (!scripts[name]) continue;
    out.push({ id: name, run: script(name), sources: [...sources, ...config], tests: name === 'build' ? [] : tests, exclude, block: true, timeout: 600, proves: `\`${runner} run ${name}\` succeeds on the declared files.`, from: `package.json scripts.${name}` });
  }
  if (!scripts.typecheck && existsSync(join(root, 'tsconfig.json'))) {
    out.push({ id: 'typecheck', run: ['npx', '--no-install', 'tsc', '--noEmit'], sources: [...sources, ...config], tests, exclude, block: true, timeout: 600, proves: 'The TypeScript compiler reports no errors.', from: 'tsconfig.json' });
  }
  return out;
}

function fromPython(root: string): Proposal[] {
  const markers = ['pyproject.toml', 'setup.py', 'setup.cfg', 'pytest.ini', 'tox.ini'].filter((f) => existsSync(join(root, f)));
  if (markers.length === 0) return [];
  return [
    {
      id: 'tests',
      run: ['python3', '-m', 'pytest', '-q'],
      sources: ['**/*.py', ...markers],
      tests: firstExisting(root, ['tests', 'test']).map((dir) => `${dir}/**/*.py`),
      exclude: ['.venv/**', 'venv/**', '**/__pycache__/**', 'build/**', 'dist/**'],
      block: true,
      timeout: 600,
      proves: 'pytest exits 0 on the declared Python sources and tests.',
      from: markers.join(', '),
    },
  ];
}

function fromGo(root: string): Proposal[] {
  if (!existsSync(join(root, 'go.mod'))) return [];
  return [
    { id: 'tests', run: ['go', 'test', './...'], sources: ['**/*.go', 'go.mod', ...(existsSync(join(root, 'go.sum')) ? ['go.sum'] : [])], tests: [], exclude: ['vendor/**'], block: true, timeout: 600, proves: '`go test ./...` passes on the declared Go files.', from: 'go.mod' },
    { id: 'vet', run: ['go', 'vet', './...'], sources: ['**/*.go', 'go.mod'], tests: [], exclude: ['vendor/**'], block: true, timeout: 300, proves: '`go vet ./...` reports nothing.', from: 'go.mod' },
  ];
}

function fromCargo(root: string): Proposal[] {
  if (!existsSync(join(root, 'Cargo.toml'))) return [];
  return [
    {
      id: 'tests',
      run: ['cargo', 'test'],
      sources: ['src/**/*.rs', 'Cargo.toml', ...(existsSync(join(root, 'Cargo.lock')) ? ['Cargo.lock'] : [])],
      tests: existsSync(join(root, 'tests')) ? ['tests/**/*.rs'] : [],
      exclude: ['target/**'],
      block: true,
      timeout: 1200,
      proves: '`cargo test` passes on the declared crate files.',
      from: 'Cargo.toml',
    },
  ];
}

function fromMakefile(root: string): Proposal[] {
  let text: string;
  try {
    text = readFileSync(join(root, 'Makefile'), 'utf8');
  } catch {
    return [];
  }
  if (!/^test\s*:/m.test(text)) return [];
  const dirs = firstExisting(root, ['src', 'lib']);
  return [
    { id: 'make-test', run: ['make', 'test'], sources: ['Makefile', ...dirs.map((dir) => `${dir}/**`)], tests: firstExisting(root, ['test', 'tests']).map((d) => `${d}/**`), exclude: [], block: true, timeout: 600, proves: '`make test` exits 0 on the declared files.', from: 'Makefile target test' },
  ];
}

/** vouch.yaml text for the proposals, with comments that say what to review. */
export function renderSpec(proposals: readonly Proposal[]): string {
  const lines = [
    '# vouch.yaml: the checks that decide when work is done.',
    '# Review every command before `vouch allow`: they run on this machine with your permissions.',
    '# Reference: `vouch checks --help`, schema: `vouch schema`.',
    'version: 1',
    'checks:',
  ];
  if (proposals.length === 0) {
    lines.push(
      '  # Nothing was detected. An example to adapt:',
      '  - id: tests',
      '    run: ["make", "test"]',
      '    sources: ["src/**"]',
      '    tests: ["test/**"]',
      '    proves: "The test suite passes on the declared scope."',
    );
    return `${lines.join('\n')}\n`;
  }
  const list = (values: readonly string[]) => `[${values.map((v) => JSON.stringify(v)).join(', ')}]`;
  for (const p of proposals) {
    lines.push(`  # from ${p.from}`, `  - id: ${p.id}`, `    run: ${list(p.run)}`);
    if (p.timeout !== undefined) lines.push(`    timeout: ${p.timeout}`);
    if (p.sources.length) lines.push(`    sources: ${list(p.sources)}`);
    if (p.tests.length) lines.push(`    tests: ${list(p.tests)}`);
    if (p.exclude.length) lines.push(`    exclude: ${list(p.exclude)}`);
    if (!p.block) lines.push('    block: false');
    lines.push(`    proves: ${JSON.stringify(p.proves)}`);
  }
  return `${lines.join('\n')}\n`;
}
