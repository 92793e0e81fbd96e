import picomatch from 'picomatch';
import { excludesOf } from './excludes.js';
import type { ScopeDecl } from './scan-types.js';

/**
 * Whether a workspace-relative path is in a check's declared scope: matched
 * by an input or artifact glob, or by a source or test glob and not
 * excluded. The same rule the scan applies, without touching the disk, so
 * the gate can ask it of paths a session reported writing (even ones since
 * deleted).
 */
export function scopeMatcher(check: Omit<ScopeDecl, 'allowMissing'>): (path: string) => boolean {
  const options = { dot: true };
  const code = [...check.sources, ...check.tests];
  const matchCode = code.length > 0 ? picomatch(code, options) : () => false;
  const kept = [...check.artifacts, ...(check.inputs ?? [])];
  const matchKept = kept.length > 0 ? picomatch(kept, options) : () => false;
  const exclude = excludesOf(check);
  const excluded = exclude.length > 0 ? picomatch([...exclude], options) : () => false;
  return (path) => matchKept(path) || (matchCode(path) && !excluded(path));
}
