import picomatch from 'picomatch';
import type { CheckDef } from '../spec/model.js';

/**
 * Whether a workspace-relative path is in a check's declared scope: matched
 * by a source, test or artifact glob, and for sources and tests not excluded.
 * The same rule the scan applies, without touching the disk, so the gate can
 * ask it of paths a session reported writing (even ones since deleted).
 */
export function scopeMatcher(check: CheckDef): (path: string) => boolean {
  const options = { dot: true };
  const inputs = [...check.sources, ...check.tests];
  const input = inputs.length > 0 ? picomatch(inputs, options) : () => false;
  const artifact = check.artifacts.length > 0 ? picomatch([...check.artifacts], options) : () => false;
  const excluded = check.exclude.length > 0 ? picomatch([...check.exclude], options) : () => false;
  return (path) => artifact(path) || (input(path) && !excluded(path));
}
