import picomatch from 'picomatch';
import { minimalBases } from '../scope/walk.js';
import type { CheckDef } from '../spec/model.js';

/**
 * The directories a hermetic check may write, workspace-relative ('' is the
 * root): where its artifacts' globs start (a literal artifact's own
 * folder), and the folder of a `file_exists` expectation. Nothing else of
 * its private copy is writable: a run that writes beside its sources fails
 * as on a read-only checkout, and says where.
 */
export function writableDirs(check: Pick<CheckDef, 'artifacts' | 'expect'>): string[] {
  const bases = check.artifacts.map((glob) => {
    const scanned = picomatch.scan(glob);
    return scanned.isGlob ? scanned.base : parentOf(glob);
  });
  if (check.expect.kind === 'file_exists') bases.push(parentOf(check.expect.path));
  return minimalBases(bases);
}

export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}
