import picomatch from 'picomatch';
import { compositeParts } from './composite.js';
import { scriptInputs, type ScriptInputs, type Scripts } from './npm-scripts.js';
import type { Project } from './project.js';
import { braced, COMMON_EXCLUDES, extGlob, extOf, topDir, type Proposal } from './proposal.js';
import { configGlobsOf } from './tool-configs.js';

const CODE_EXTS = new Set(['js', 'mjs', 'cjs', 'jsx', 'ts', 'mts', 'cts', 'tsx', 'vue', 'svelte']);
const SOURCE_DIRS = ['src', 'lib', 'app', 'source', 'packages', 'bin'];
const TEST_DIRS = ['test', 'tests', '__tests__', 'spec', 'e2e'];
/** Below the top, `spec/` or `e2e/` can as well be code (`src/spec/` parsing a spec): only these names mean tests there. */
const NESTED_TEST_DIRS = ['test', 'tests', '__tests__'];
const NPM_PLACEHOLDER_TEST = /no test specified/;
/** The name a part of a composite script is read under (no script of package.json can have it: it holds a NUL). */
const PART = '\0part';
/** `x.test.ts`, `x.spec.js`, and tsd's type tests `index.test-d.ts`. */
const COLOCATED_TEST = /\.(test|spec|test-d)\.[^./]+$/;
/** A test file by its whole name: `test.js` at the root (`node test.js`, ava's default), `tests.ts`. */
const TEST_FILE = /^tests?\.[^./]+$/;

/**
 * Checks from package.json: its test, lint, typecheck and build scripts
 * (and `tsc --noEmit` for a tsconfig.json without a typecheck script).
 * Each check covers the code, the tests (except build) and the files its
 * script names; its inputs are what decides what it runs, present or not:
 * package.json, the lockfile and .npmrc of its runner, the config files of
 * the tools it runs, and `node_modules/.bin/NAME` for each program the
 * script starts by name that no dependency provides now (npm looks there
 * before the PATH: a `node` shim dropped there would run instead of node).
 * What a dependency's bin is, is the dependency's, which belongs in
 * sources when it matters (the lockfile pins its version).
 */
export function fromPackageJson(project: Project): Proposal[] {
  const pkg = readJson(project.read('package.json'));
  if (!pkg) return [];
  const scripts = (typeof pkg.scripts === 'object' && pkg.scripts !== null ? pkg.scripts : {}) as Scripts;
  const { sources, tests } = layout(project);
  const runner = project.has('pnpm-lock.yaml') ? 'pnpm' : project.has('yarn.lock') ? 'yarn' : 'npm';
  const script = (name: string) => (runner === 'npm' ? ['npm', 'run', '--silent', name] : [runner, 'run', name]);
  const covered = picomatch([...sources, ...tests], { dot: true });
  // The script's own files (`node scripts/build.mjs`) beside the code; its runner's and tools' configs, and the programs it starts, as inputs.
  const scoped = ({ tools, paths, commands }: ScriptInputs, withTests: boolean) => ({
    sources: [...sources, ...project.existing([...paths].filter((path) => !covered(path)).sort())],
    tests: withTests ? tests : [],
    inputs: [...configGlobsOf([runner, ...tools]), ...shims(project, commands)],
    exclude: [...COMMON_EXCLUDES],
  });
  const out: Proposal[] = [];
  // `xo && ava && tsd`: one check per part, each with its own tool configs as inputs, so a FAIL names the part.
  const split = (name: string, id: string, withTests: boolean): Proposal[] | undefined =>
    compositeParts(scripts, name)?.map((part) => ({
      id: `${id}-${part.name}`,
      family: 'npm',
      run: part.run,
      ...scoped(scriptInputs({ ...scripts, [PART]: part.text }, PART), withTests),
      block: true,
      timeout: 600,
      proves: `\`${part.text}\` (part of \`${runner} ${name === 'test' ? 'test' : `run ${name}`}\`) exits 0 on the declared files.`,
      from: `package.json scripts.${name}, part \`${part.text}\``,
    }));
  const parts = typeof scripts.test === 'string' ? split('test', 'tests', true) : undefined;
  if (parts) out.push(...parts);
  else if (typeof scripts.test === 'string' && !NPM_PLACEHOLDER_TEST.test(scripts.test)) {
    out.push({
      id: 'tests',
      family: 'npm',
      run: runner === 'npm' ? ['npm', 'test'] : [runner, 'test'],
      ...scoped(scriptInputs(scripts, 'test'), true),
      block: true,
      timeout: 600,
      proves: 'The test suite passes on the declared sources and tests.',
      from: 'package.json scripts.test',
    });
  }
  for (const name of ['typecheck', 'lint', 'build'] as const) {
    if (typeof scripts[name] !== 'string') continue;
    const partsOf = split(name, name, name !== 'build');
    if (partsOf) {
      out.push(...partsOf);
      continue;
    }
    out.push({
      id: name,
      family: 'npm',
      run: script(name),
      ...scoped(scriptInputs(scripts, name), name !== 'build'),
      block: true,
      timeout: 600,
      proves: `\`${runner} run ${name}\` succeeds on the declared files.`,
      from: `package.json scripts.${name}`,
    });
  }
  if (typeof scripts.typecheck !== 'string' && project.has('tsconfig.json')) {
    out.push({
      id: 'typecheck',
      family: 'npm',
      run: ['npx', '--no-install', 'tsc', '--noEmit'],
      ...scoped({ tools: new Set(['tsc']), paths: new Set(), commands: new Set(['tsc']) }, true),
      block: true,
      timeout: 600,
      proves: 'The TypeScript compiler reports no errors.',
      from: 'tsconfig.json',
    });
  }
  return out;
}

/** `node_modules/.bin/NAME` for each command the script starts that is not there now: a program that appears there would shadow the one on the PATH. */
function shims(project: Project, commands: ReadonlySet<string>): string[] {
  return [...commands]
    .sort()
    .map((command) => `node_modules/.bin/${command}`)
    .filter((path) => !project.hasEntry(path));
}

/**
 * Where the code and the tests are: source directories whole, code files at
 * the root (or, with no source directory, code files anywhere), test
 * directories whole (at the top, or nested: `packages/a/test/`) and test
 * files beside the code (`x.test.ts`). Tests are tried before sources, so
 * a test file that a source glob matches too is a test.
 */
function layout(project: Project): { sources: string[]; tests: string[] } {
  const segments = (path: string) => path.split('/').slice(0, -1);
  const topTestDirs = TEST_DIRS.filter((dir) => project.files.some((path) => topDir(path) === dir));
  const nestedTestDirs = NESTED_TEST_DIRS.filter((dir) => project.files.some((path) => segments(path).slice(1).includes(dir)));
  const sourceDirs = SOURCE_DIRS.filter((dir) => project.files.some((path) => topDir(path) === dir));
  const code = project.files.filter((path) => CODE_EXTS.has(extOf(path)) && !topTestDirs.includes(topDir(path)));
  const sources = sourceDirs.map((dir) => `${dir}/**`);
  const codeGlob = sourceDirs.length > 0 ? extGlob('', code.filter((path) => topDir(path) === '').map(extOf)) : extGlob('**/', code.map(extOf));
  if (codeGlob) sources.push(codeGlob);
  const tests = [...topTestDirs.filter((dir) => !nestedTestDirs.includes(dir)).map((dir) => `${dir}/**`), ...nestedTestDirs.map((dir) => `**/${dir}/**`)];
  const colocated = code.filter((path) => COLOCATED_TEST.test(path));
  const kinds = ['test', 'spec', ...(colocated.some((path) => path.includes('.test-d.')) ? ['test-d'] : [])];
  if (colocated.length > 0) tests.push(`**/*.{${kinds.join(',')}}.${braced(colocated.map(extOf))}`);
  const named = code.filter((path) => TEST_FILE.test(path.slice(path.lastIndexOf('/') + 1)));
  const rootNamed = named.filter((path) => !path.includes('/'));
  if (rootNamed.length > 0) tests.push(...rootNamed);
  if (named.length > rootNamed.length) tests.push(`**/${extGlob('', named.filter((path) => path.includes('/')).map(extOf))!.replace('*', '{test,tests}')}`);
  return { sources, tests };
}

function readJson(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
