import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolveExecutable } from '../runner/executable.js';
import type { Pins } from './pins.js';

/**
 * One thing `vouch allow` pins that moved since the allow before it. A
 * re-allow from another shell can swap what runs (a virtualenv's python3
 * for the system's) without a byte of the spec changing: these say so.
 */
export type PinChange =
  | { readonly kind: 'path'; readonly before: string; readonly after: string }
  | {
      readonly kind: 'executable';
      /** The checks that run it. */
      readonly checks: readonly string[];
      readonly command: string;
      /** Where the command was found on each PATH (as found, links not resolved), or null. */
      readonly before: string | null;
      readonly after: string | null;
      /** The virtualenv the command was found in before and is not in now, or null. */
      readonly leftVenv: string | null;
    }
  | { readonly kind: 'tool_config'; readonly path: string; readonly change: FileChange }
  | { readonly kind: 'input'; readonly check: string; readonly path: string; readonly change: FileChange };

export type FileChange = 'appeared' | 'changed' | 'went away';

/** What moved between the pins of the last allow and the pins taken now; [] when nothing did (or there was no earlier allow). */
export function pinChanges(before: Pins | undefined, after: Pins, root: string): PinChange[] {
  if (before === undefined) return [];
  const changes: PinChange[] = [];
  if (before.path !== after.path) changes.push({ kind: 'path', before: before.path, after: after.path });
  const moved = new Map<string, { command: string; before: string | null; after: string | null; checks: string[] }>();
  for (const [check, pin] of Object.entries(after.executables)) {
    const old = before.executables[check];
    if (old === undefined || old.command !== pin.command) continue;
    const was = resolveExecutable(old.command, root, before.path);
    const now = resolveExecutable(pin.command, root, after.path);
    if (old.path === pin.path && old.sha256 === pin.sha256 && was === now) continue;
    const key = `${pin.command}\0${was}\0${now}`;
    const entry = moved.get(key) ?? { command: pin.command, before: was ?? old.path, after: now ?? pin.path, checks: [] };
    entry.checks.push(check);
    moved.set(key, entry);
  }
  for (const entry of moved.values()) {
    const venvBefore = venvOf(entry.before);
    changes.push({ kind: 'executable', ...entry, leftVenv: venvBefore !== null && venvBefore !== venvOf(entry.after) ? venvBefore : null });
  }
  for (const [path, change] of fileChanges(before.tool_configs, after.tool_configs, 'absent')) changes.push({ kind: 'tool_config', path, change });
  for (const [check, pin] of Object.entries(after.inputs ?? {})) {
    const old = before.inputs?.[check];
    if (old === undefined) continue;
    for (const [path, change] of fileChanges(old.files, pin.files)) changes.push({ kind: 'input', check, path, change });
  }
  return changes;
}

/** The virtualenv a program was found in (a `bin/` beside a pyvenv.cfg), or null. */
export function venvOf(program: string | null): string | null {
  if (program === null) return null;
  const env = dirname(dirname(program));
  return existsSync(join(env, 'pyvenv.cfg')) ? env : null;
}

function fileChanges(before: Readonly<Record<string, string>>, after: Readonly<Record<string, string>>, absent?: string): [string, FileChange][] {
  const out: [string, FileChange][] = [];
  const present = (value: string | undefined) => value !== undefined && value !== absent;
  for (const path of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()) {
    const was = before[path];
    const now = after[path];
    if (was === now) continue;
    if (!present(was) && !present(now)) continue;
    out.push([path, !present(was) ? 'appeared' : !present(now) ? 'went away' : 'changed']);
  }
  return out;
}
