import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Directories detection never looks into: version control, vouch's state,
 * dependencies, caches and build output. A directory holding `pyvenv.cfg`
 * (a Python virtual environment, whatever its name) is skipped too.
 */
export const SKIPPED_DIRS: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  '.vouch',
  'node_modules',
  '__pycache__',
  '.tox',
  '.nox',
  '.venv',
  'venv',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.eggs',
  'dist',
  'build',
  'target',
  'coverage',
  '.nyc_output',
  '.next',
  '.cache',
  'vendor',
]);

/** Enough to read any project's layout; a bigger tree is sampled, not walked whole. */
const MAX_FILES = 20_000;

/** The project init looks at: its files (relative paths, sorted), read once. */
export class Project {
  /** Every file outside SKIPPED_DIRS (first MAX_FILES in path order); symlinks are not followed. */
  readonly files: readonly string[];
  /** Directories that hold a Python virtual environment (they hold pyvenv.cfg). */
  readonly venvs: readonly string[];

  constructor(readonly root: string) {
    const files: string[] = [];
    const venvs: string[] = [];
    const walk = (dir: string) => {
      let entries;
      try {
        entries = readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
      } catch {
        return;
      }
      if (dir !== '' && entries.some((entry) => entry.name === 'pyvenv.cfg' && entry.isFile())) {
        venvs.push(dir);
        return;
      }
      for (const entry of entries) {
        if (files.length >= MAX_FILES) return;
        const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRS.has(entry.name) && !entry.name.endsWith('.egg-info')) walk(path);
        } else if (entry.isFile()) files.push(path);
      }
    };
    walk('');
    this.files = files;
    this.venvs = venvs;
  }

  /** A file at this relative path exists (anything: detection only reads what it names). */
  has(path: string): boolean {
    return existsSync(join(this.root, path));
  }

  /** Anything is at this relative path, a dangling link too. */
  hasEntry(path: string): boolean {
    try {
      lstatSync(join(this.root, path));
      return true;
    } catch {
      return false;
    }
  }

  isDir(path: string): boolean {
    try {
      return statSync(join(this.root, path)).isDirectory();
    } catch {
      return false;
    }
  }

  /** A file's text, or '' when it cannot be read. */
  read(path: string): string {
    try {
      return readFileSync(join(this.root, path), 'utf8');
    } catch {
      return '';
    }
  }

  /** Of `names` (relative paths), those that are regular files, in the order given. */
  existing(names: readonly string[]): string[] {
    return names.filter((name) => {
      try {
        return lstatSync(join(this.root, name)).isFile();
      } catch {
        return false;
      }
    });
  }
}
