import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { checkGlob } from '../scope/paths.js';
import { loadSpec } from '../spec/load.js';
import type { Workspace } from '../workspace/find.js';

export interface ProtectList {
  readonly globs: readonly string[];
  /** Set when vouch.yaml could not be validated and its protect: list was read leniently. */
  readonly note: string | null;
}

/**
 * The spec's protect: globs for the guard. A spec that does not validate
 * still protects what it lists: the list is read from the YAML alone, so a
 * broken check elsewhere does not open protected files to the agent.
 */
export function protectListOf(workspace: Workspace, hasSpec: boolean): ProtectList {
  if (!hasSpec) return { globs: [], note: null };
  const loaded = loadSpec(workspace.specPath);
  if (loaded.ok) return { globs: loaded.value.protect, note: null };
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
  return { globs, note: 'vouch.yaml is not a valid spec; its protect: list was read as written' };
}
