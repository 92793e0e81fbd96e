import type { Project } from './project.js';
import { extGlob, extOf, topDir, type Proposal } from './proposal.js';
import { checkGlob } from '../scope/paths.js';
import { configGlobsOf } from './tool-configs.js';

const MAKEFILES = ['GNUmakefile', 'makefile', 'Makefile'];
/** What a Makefile usually builds and runs; not object files or binaries, which `make` writes. */
const SOURCE_EXTS = new Set([
  'c',
  'h',
  'cc',
  'cpp',
  'cxx',
  'hh',
  'hpp',
  'hxx',
  's',
  'S',
  'sh',
  'bash',
  'py',
  'pl',
  'pm',
  'rb',
  'lua',
  'awk',
  'sed',
  'tcl',
  'go',
  'rs',
  'js',
  'ts',
  'java',
  'f90',
  'zig',
  'in',
  'am',
  'ac',
]);
const TEST_DIRS = ['test', 'tests', 't'];
/** A test source at the root by its name: `tests.c` (parson), `test_main.c`, `test.sh`. */
const TEST_FILE = /^tests?(?:[_-][^/]*)?\.[A-Za-z0-9]+$/;

/**
 * `make test` (or `make check`) when the Makefile has that target. Its
 * inputs are every makefile name make looks for (a GNUmakefile that appears
 * is read before the Makefile), the files it includes and `*.mk`, present
 * or not; its scope the source files of the kinds the project holds (by
 * extension, so the objects and binaries `make` writes are not in scope
 * and cannot change it during the run), and the test directories, which
 * are tried first.
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
      sources: code ? [code] : [],
      tests: [
        ...testDirs.map((dir) => `${dir}/**`),
        ...project.files.filter((path) => !path.includes('/') && TEST_FILE.test(path) && SOURCE_EXTS.has(extOf(path))),
      ],
      inputs: [...new Set([...configGlobsOf(['make']), ...includesOf(text)])],
      exclude: ['build/**', '**/node_modules/**'],
      block: true,
      timeout: 600,
      proves: `\`make ${target}\` exits 0 on the declared files.`,
      from: `${makefile} target ${target}`,
    },
  ];
}

/**
 * The files a makefile includes (`include`, `-include`, `sinclude`) that it
 * names literally, inside the workspace: what make reads besides the
 * makefile. A name built from variables is not followed.
 */
function includesOf(text: string): string[] {
  const files: string[] = [];
  for (const match of text.matchAll(/^\s*(?:-|s)?include\s+(.+)$/gm)) {
    for (const word of match[1]!.split(/\s+/)) {
      if (word === '' || word.includes('$')) continue;
      const glob = checkGlob(word);
      if (glob.ok) files.push(glob.value);
    }
  }
  return files;
}
