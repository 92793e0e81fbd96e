import { sep } from 'node:path';

/** True when an absolute path is the root or below it (both canonical). */
export function isInside(root: string, absolute: string): boolean {
  return absolute === root || absolute.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}
