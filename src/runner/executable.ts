import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/**
 * Where argv[0] resolves on the check's PATH, for the receipt: a PASS from a
 * `npm` that is not the usual one should be visible to anyone reading it.
 */
export function resolveExecutable(command: string, cwd: string, path: string | undefined): string | null {
  if (command.includes('/')) {
    const candidate = isAbsolute(command) ? command : resolve(cwd, command);
    return isExecutable(candidate) ? candidate : null;
  }
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(resolve(cwd, dir), command);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
