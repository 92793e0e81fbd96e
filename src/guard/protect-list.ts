import { existsSync, readFileSync } from 'node:fs';
import { cacheKey } from '../cache/key.js';
import { cachedSpec } from '../spec/spec-cache.js';
import { sha256 } from '../core/digest.js';
import { checkGlob } from '../scope/paths.js';
import type { Workspace } from '../workspace/find.js';

export interface ProtectList {
  readonly globs: readonly string[];
  /** Set when vouch.yaml could not be validated and its protect: list was read leniently. */
  readonly note: string | null;
}

/**
 * The spec's protect: globs for the guard. While vouch.yaml's bytes are
 * those of the validated spec in the spec cache (`home`'s, authenticated by
 * its key), its protect: list; otherwise read from the YAML alone: the guard
 * runs before every write, so it does not validate the whole spec, and a
 * spec broken elsewhere still protects what it lists. Each glob is checked
 * and normalised as the spec loader does.
 */
export async function protectListOf(workspace: Workspace, hasSpec: boolean, home?: string): Promise<ProtectList> {
  if (!hasSpec) return { globs: [], note: null };
  let bytes: Buffer;
  try {
    bytes = readFileSync(workspace.specPath);
  } catch {
    return { globs: [], note: 'vouch.yaml could not be read; only vouch.yaml and .vouch/ are protected' };
  }
  // The YAML parser is a third of a hook call's start-up: not loaded while the spec is unchanged.
  const key = home !== undefined && existsSync(workspace.stateDir) ? cacheKey(home) : undefined;
  const hit = key && cachedSpec(home!, workspace.root, key, workspace.specPath, sha256(bytes));
  if (hit) return { globs: hit.protect, note: null };
  let data: unknown;
  try {
    const { parseLeniently } = await import('./protect-yaml.js');
    data = parseLeniently(bytes.toString('utf8'));
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
