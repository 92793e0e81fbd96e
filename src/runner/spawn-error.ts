import { statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * Why a command could not be started, in words a person can act on: which
 * name was looked for, where (the check's own PATH, directory by directory,
 * or the path as written), and what to do. Node's own message
 * ("spawn nosuch ENOENT") says none of that.
 */
export function spawnErrorMessage(error: NodeJS.ErrnoException, file: string, cwd: string, path: string | undefined): string {
  const named = JSON.stringify(file);
  switch (error.code) {
    case 'ENOENT': {
      // spawn says ENOENT for a missing cwd too.
      if (!isDirectory(cwd)) return `the check's cwd ${cwd} does not exist, so ${named} could not be started`;
      if (file.includes('/')) {
        const full = isAbsolute(file) ? file : resolve(cwd, file);
        return exists(full)
          ? `${named} exists, but the interpreter on its #! line was not found; install it, or fix the #! line`
          : `command not found: ${named} does not exist${isAbsolute(file) ? '' : ` (looked for ${full}, from the check's cwd)`}; fix run: in vouch.yaml`;
      }
      const dirs = (path ?? '').split(delimiter).filter((dir) => dir !== '');
      const found = dirs.map((dir) => join(resolve(cwd, dir), file)).find(exists);
      if (found) return `${named} resolves to ${found}, but the interpreter on its #! line was not found; install it, or fix the #! line`;
      return (
        `command not found: ${named} is in none of the directories on the check's PATH (${dirs.length > 0 ? dirs.join(', ') : 'PATH is empty'}); ` +
        'install it there, or write its full path in run: in vouch.yaml'
      );
    }
    case 'EACCES':
      return `${named} cannot be executed (permission denied): make it executable (chmod +x), or run it through its interpreter in run:`;
    case 'ENOEXEC':
      return `${named} is not a program the system can run (no #! line, or a foreign binary): run it through its interpreter in run:`;
    default:
      return `${named} could not be started: ${error.message}`;
  }
}

function exists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
