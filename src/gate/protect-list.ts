import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { checkGlob } from '../scope/paths.js';
import type { Workspace } from '../workspace/find.js';

export interface ProtectList {
  readonly globs: readonly string[];
  /** Set when vouch.yaml could not be validated and its protect: list was read leniently. */
  readonly note: string | null;
}

/**
 * The spec's protect: globs for the guard, read from the YAML alone: the
 * guard runs before every write, so it does not validate the whole spec, and
 * a spec broken elsewhere still protects what it lists. Each glob is checked
 * and normalised as the spec loader does.
 */
export function protectListOf(workspace: Workspace, hasSpec: boolean): ProtectList {
  if (!hasSpec) return { globs: [], note: null };
  let data: unknown;
  try {
    data = parse(readFileSync(workspace.specPath, 'utf8'));
  } catch {
    return { globs: [], note: 'vouch.yaml could not be read; only vouch.yaml and .vouch/ are protected' };
  }
  const raw = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).protect : undefined;
  const globs = Array.isArray(raw)
    ? raw.flatMap((glob) => {
        if (typeof glob !== 'string') return [];
        const checked = checkGlob(glob);
        return checked.ok ? [checked.value] : [];
      })
    : [];
  return { globs, note: Array.isArray(raw) && globs.length < raw.length ? 'some protect: globs are not valid and were ignored (run `vouch checks`)' : null };
}
