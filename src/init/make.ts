import type { Project } from './project.js';
import { extGlob, extOf, topDir, type Proposal } from './proposal.js';
import { configsOf } from './tool-configs.js';

const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];
/** What a Makefile usually builds and runs; not object files or binaries, which `make` writes. */
const SOURCE_EXTS = new Set(['c', 'h', 'cc', 'cpp', 'cxx', 'hh', 'hpp', 'hxx', 's', 'S', 'sh', 'bash', 'py', 'pl', 'pm', 'rb', 'lua', 'awk', 'sed', 'tcl', 'go', 'rs', 'js', 'ts', 'java', 'f90', 'zig', 'in', 'am', 'ac']);
const TEST_DIRS = ['test', 'tests', 't'];

/**
 * `make test` (or `make check`) when the Makefile has that target. The
 * scope is the Makefile and its includes, the source files of the kinds the
 * project holds (by extension, so the objects and binaries `make` writes
 * are not in scope and cannot change it during the run), and the test
 * directories, which are tried first.
 */
export function fromMakefile(project: Project): Proposal[] {
  const makefile = project.existing(MAKEFILES)[0];
  if (makefile === undefined) return [];
  const text = project.read(makefile);
  // A rule, not a variable assignment (`test := ...`).
  const target = ['test', 'check'].find((name) => new RegExp(`^${name}\\s*:(?!=)`, 'm').test(text));
  if (target === undefined) return [];
  const testDirs = TEST_DIRS.filter((dir) => project.files.some((path) => topDir(path) === dir));
  const code = extGlob('**/', project.files.filter((path) => SOURCE_EXTS.has(extOf(path))).map(extOf));
  return [
    {
      id: `make-${target}`,
      family: 'make',
      run: ['make', target],
      sources: [...new Set([makefile, ...configsOf(project.root, ['make']), ...(code ? [code] : [])])],
      tests: testDirs.map((dir) => `${dir}/**`),
      exclude: ['build/**', '**/node_modules/**'],
      block: true,
      timeout: 600,
      proves: `\`make ${target}\` exits 0 on the declared files.`,
      from: `${makefile} target ${target}`,
    },
  ];
}
