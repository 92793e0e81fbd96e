import picomatch from 'picomatch';
import type { Project } from './project.js';
import { topDir, type Proposal } from './proposal.js';
import { configGlobsOf } from './tool-configs.js';

const EXCLUDE = ['.venv/**', 'venv/**', '**/__pycache__/**', 'build/**', 'dist/**', '.tox/**', '.nox/**'];
const TEST_DIRS = ['tests', 'test'];
/** What unittest can import: its loader skips any other file name. */
const MODULE_NAME = /^[_a-z]\w*\.py$/i;

/**
 * A Python test check, when the project has test files: pytest when the
 * project configures it or its tests need it, else unittest when the tests
 * are unittest.TestCase classes. Sources are every Python file (tests are
 * tried first, so a test file is a test); for pytest, the files it reads
 * settings from and every conftest.py are inputs.
 */
export function fromPython(project: Project): Proposal[] {
  const python = project.files.filter((path) => path.endsWith('.py'));
  const testFiles = python.filter((path) => isTestName(basename(path)));
  if (testFiles.length === 0) return [];
  const exclude = [...EXCLUDE, ...project.venvs.filter((dir) => !EXCLUDE.includes(`${dir}/**`)).map((dir) => `${dir}/**`)];
  const texts = testFiles.map((path) => project.read(path));
  const interpreter = venvPython(project);
  if (usesPytest(project, python, texts)) return [pytest(project, testFiles, exclude, interpreter)];
  if (texts.some((text) => /^\s*(import unittest|from unittest\b)/m.test(text))) {
    const proposal = unittest(project, testFiles, exclude, interpreter);
    return proposal ? [proposal] : [];
  }
  return [];
}

/**
 * The project's virtualenv interpreter (`.venv/bin/python`, else
 * `venv/bin/python`) when one is there, else `python3`: the tests' imports
 * are installed there, and naming it in the check keeps `vouch allow` from
 * pinning whichever python3 the allowing shell has first on its PATH.
 */
function venvPython(project: Project): string {
  for (const dir of ['.venv', 'venv']) {
    if (project.has(`${dir}/pyvenv.cfg`) && project.hasEntry(`${dir}/bin/python`)) return `${dir}/bin/python`;
  }
  return 'python3';
}

/** A virtualenv's pyvenv.cfg decides which Python and which site-packages it runs: pinned at allow. */
function venvInputs(interpreter: string): string[] {
  return interpreter === 'python3' ? [] : [`${interpreter.slice(0, interpreter.indexOf('/'))}/pyvenv.cfg`];
}

function isTestName(name: string): boolean {
  return name.startsWith('test') || name.endsWith('_test.py');
}

/** pytest's own settings, a conftest.py, or a test that imports pytest or is a bare function. */
function usesPytest(project: Project, python: readonly string[], texts: readonly string[]): boolean {
  if (project.has('pytest.ini')) return true;
  if (/^\[tool\.pytest/m.test(project.read('pyproject.toml'))) return true;
  if (/^\[tool:pytest\]/m.test(project.read('setup.cfg'))) return true;
  if (/^\[pytest\]/m.test(project.read('tox.ini'))) return true;
  if (python.some((path) => basename(path) === 'conftest.py')) return true;
  return texts.some((text) => /^\s*(import pytest|from pytest\b)/m.test(text) || (/^def test_/m.test(text) && !/\bunittest\b/.test(text)));
}

/** pytest, its settings and conftest.py files (present or not: one that appears later counts) as inputs. */
function pytest(project: Project, testFiles: readonly string[], exclude: readonly string[], interpreter: string): Proposal {
  const collected = testFiles.filter((path) => /^test_.*\.py$|_test\.py$/.test(basename(path)));
  const root = pytestNeedsRoot(project, collected.length > 0 ? collected : testFiles);
  const run = [interpreter, '-m', 'pytest', '-q'];
  return {
    id: 'tests',
    family: 'python',
    run: root ? ['env', 'PYTHONPATH=.', ...run] : run,
    sources: ['**/*.py'],
    tests: testGlobs(collected.length > 0 ? collected : testFiles, ['test_*.py', '*_test.py']),
    // With the root on the path, a sourceless .pyc there would shadow a module of the same name (even pytest): an input.
    inputs: [...configGlobsOf(['pytest']), ...(root ? ['*.pyc'] : []), ...venvInputs(interpreter)],
    exclude,
    block: true,
    timeout: 600,
    proves: 'pytest exits 0 on the declared Python sources and tests.',
    from: `Python tests run by pytest${interpreter === 'python3' ? '' : ` (${interpreter}: the virtualenv's)`}`,
  };
}

/**
 * `python3 -m unittest` discovers `test*.py` from the current directory,
 * entering only directories that are packages (hold `__init__.py`). Tests
 * named `*_test.py` need `-p`, a tests/ directory that is not a package
 * needs `-s tests`, and a src/ layout needs src on the import path (else
 * the tests would import an installed copy, or nothing); a start below the
 * root needs the root on it (checks run with PYTHONSAFEPATH, so the working
 * directory is not on the path). The start that
 * discovers the most test files is proposed; on Python 3.11 a run that
 * finds none still exits 0, so the check also expects "Ran N tests" with N
 * at least 1.
 */
function unittest(project: Project, testFiles: readonly string[], exclude: readonly string[], interpreter: string): Proposal | undefined {
  const pattern = testFiles.some((path) => basename(path).startsWith('test')) ? 'test*.py' : '*_test.py';
  const isMatch = picomatch(pattern);
  const candidates = testFiles.filter((path) => isMatch(basename(path)) && MODULE_NAME.test(basename(path)));
  const starts = ['', ...new Set(candidates.map(topDir).filter((dir) => dir !== ''))];
  let best = { start: '', found: [] as string[] };
  for (const start of starts) {
    const found = candidates.filter((path) => discoverable(project, start, path));
    if (found.length > best.found.length) best = { start, found };
  }
  if (best.found.length === 0) return undefined;
  const run = [interpreter, '-m', 'unittest'];
  if (best.start !== '' || pattern !== 'test*.py')
    run.push('discover', ...(best.start !== '' ? ['-s', best.start] : []), ...(pattern !== 'test*.py' ? ['-p', pattern] : []));
  const srcLayout = project.isDir('src') && !project.has('src/__init__.py') && project.files.some((path) => path.startsWith('src/') && path.endsWith('.py'));
  // Checks run with PYTHONSAFEPATH=1: the working directory is not on sys.path, so tests started below the
  // root that import the root's modules get the root by name. A sourceless .pyc in a directory on the path
  // would shadow a module of the same name (even unittest itself): those are inputs.
  const onPath = srcLayout ? 'src' : best.start !== '' ? '.' : undefined;
  return {
    id: 'tests',
    family: 'python',
    run: onPath !== undefined ? ['env', `PYTHONPATH=${onPath}`, ...run] : run,
    sources: ['**/*.py'],
    tests: best.start !== '' ? [`${best.start}/**`] : testGlobs(best.found, [pattern]),
    // unittest reads no settings file; Python reads modules only from the directories on its path.
    inputs: [...(onPath === undefined ? [] : [onPath === '.' ? '*.pyc' : `${onPath}/*.pyc`]), ...venvInputs(interpreter)],
    exclude,
    expectRegex: 'Ran [1-9][0-9]* tests? in',
    block: true,
    timeout: 600,
    proves: 'unittest runs at least one test and all pass, on the declared Python sources and tests.',
    from: `Python tests run by unittest${interpreter === 'python3' ? '' : ` (${interpreter}: the virtualenv's)`}`,
  };
}

/**
 * `python3 -m pytest` puts the working directory first on sys.path, and a
 * project's tests in a tests/ folder import the root's modules through it.
 * Checks run with PYTHONSAFEPATH=1 (the working directory is not on the
 * path), so the check names the root (`env PYTHONPATH=.`) when a test sits
 * below the root in a folder that is not a package up to it (pytest then
 * inserts only that folder), the root has modules to import, and pytest's
 * own `pythonpath` setting does not already say where they are.
 */
function pytestNeedsRoot(project: Project, testFiles: readonly string[]): boolean {
  const configured = ['pytest.ini', '.pytest.ini', 'pyproject.toml', 'setup.cfg', 'tox.ini'].some((file) => /^\s*pythonpath\s*=/m.test(project.read(file)));
  if (configured) return false;
  const rootModules = project.files.some(
    (path) =>
      (!path.includes('/') && path.endsWith('.py') && !isTestName(path) && path !== 'conftest.py' && path !== 'setup.py') || /^[^/]+\/__init__\.py$/.test(path),
  );
  if (!rootModules) return false;
  return testFiles.some((path) => path.includes('/') && !packagedToRoot(project, path));
}

/** Every folder from the file's up to the root holds an __init__.py: pytest inserts the root itself. */
function packagedToRoot(project: Project, path: string): boolean {
  const parts = path.split('/').slice(0, -1);
  for (let depth = parts.length; depth > 0; depth--) {
    if (!project.has(`${parts.slice(0, depth).join('/')}/__init__.py`)) return false;
  }
  return true;
}

/** Whether unittest started at `start` ('' the root) reaches `path`: every directory below the start is a package. */
function discoverable(project: Project, start: string, path: string): boolean {
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  if (start !== '' && dir !== start && !dir.startsWith(`${start}/`)) return false;
  const below = (start === '' ? dir : dir.slice(start.length)).split('/').filter(Boolean);
  let at = start;
  for (const part of below) {
    at = at === '' ? part : `${at}/${part}`;
    if (!project.has(`${at}/__init__.py`)) return false;
  }
  return true;
}

/** The tests as globs: whole test directories when every test is in one, else the name patterns, anywhere. */
function testGlobs(files: readonly string[], patterns: readonly string[]): string[] {
  const dirs = new Set(files.map(topDir));
  if ([...dirs].every((dir) => TEST_DIRS.includes(dir))) return [...dirs].sort().map((dir) => `${dir}/**`);
  return patterns.filter((pattern) => files.some((path) => picomatch(pattern)(basename(path)))).map((pattern) => `**/${pattern}`);
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}
