import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The variable that sends Python's compiled modules (.pyc) to a directory of its own. */
export const PYCACHE_VARIABLE = 'PYTHONPYCACHEPREFIX';

/**
 * A fresh, empty directory for Python's compiled modules, for one run.
 *
 * Python trusts a module's __pycache__/*.pyc while the source's mtime (in
 * whole seconds) and size match what the .pyc recorded. A module edited
 * within the second of the last run, keeping its size (`+` to `-`), or
 * edited and given its old mtime back, is run from the old bytecode: the
 * check passes on code that is not there. With PYTHONPYCACHEPREFIX set
 * (Python 3.8 and later), Python neither reads nor writes __pycache__ in the
 * tree; pointed at a directory nobody wrote, every module is compiled from
 * the source vouch fingerprinted. Other languages' tools are not affected.
 *
 * Not used when the person lists PYTHONPYCACHEPREFIX in the check's env:
 * their choice. Undefined when no directory can be made: the check then
 * runs as Python would run it anyway.
 */
export function freshPycache(listed: readonly string[]): { readonly dir: string; remove(): void } | undefined {
  if (listed.includes(PYCACHE_VARIABLE)) return undefined;
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), 'vouch-pycache-'));
  } catch {
    return undefined;
  }
  return {
    dir,
    remove: () => {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // Left in the temporary directory: it holds only compiled copies of the workspace's modules.
      }
    },
  };
}
