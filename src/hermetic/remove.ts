import { chmodSync, existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { childProcess } from '../core/builtins.js';

/** A fixed path: never an `rm` an agent put first on PATH. */
const RM = '/bin/rm';

/**
 * Removes a private copy. `rm -rf` unlinks a tree of hundreds of files in a
 * fraction of what a walk in JavaScript costs (measured: 720 files in a
 * tmpfs, 35 ms against 55 to 190 ms), and runs while the caller hashes the
 * outputs and appends the receipt; the promise settles once the tree is
 * gone. Where rm cannot (a folder the check made unreadable), the tree is
 * opened up and removed here; links are removed, never followed.
 */
export function removeTree(dir: string): Promise<void> {
  return new Promise((resolve) => {
    const fallback = () => {
      try {
        openUp(dir);
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // Left behind: a private copy of declared files, in a 0700 directory.
      }
      resolve();
    };
    if (!existsSync(RM)) return fallback();
    const child = childProcess().spawn(RM, ['-rf', '--', dir], { stdio: 'ignore' });
    child.on('error', fallback);
    child.on('exit', (code) => (code === 0 && !existsSync(dir) ? resolve() : fallback()));
  });
}

function openUp(dir: string): void {
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) return;
  chmodSync(dir, 0o700);
  for (const name of readdirSync(dir)) openUp(join(dir, name));
}
