import { readdirSync, statSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { ProtectedPaths, ProtectionRule } from './protected.js';
import type { WiringPath } from './wiring.js';

/** A protected file another name shares: a write to that name is a write to it. */
export interface HardLinkHit {
  /** The protected file, workspace-relative (or absolute outside the workspace). */
  readonly path: string;
  readonly rule: ProtectionRule;
}

/** Entries looked at, at most, per tree walked: the check runs before a tool call. */
const WALK_BUDGET = 20_000;

/**
 * The protected file an existing path is a hard link of, if any: the path
 * is a regular file with more than one name (nlink > 1), and a protected
 * file (vouch.yaml, .vouch/, protect: globs, the gate's wiring, anything
 * under VOUCH_HOME) has the same device and inode. A file with one name
 * costs one stat; only a shared one starts the (bounded) search, and asks
 * for the wiring.
 */
export function hardLinkOf(path: string, root: string | null, protect: ProtectedPaths, wiring: () => readonly WiringPath[]): HardLinkHit | null {
  const target = statOf(path);
  if (target === null || !target.isFile() || target.nlink < 2) return null;
  const same = (stat: Stats | null) => stat !== null && stat.dev === target.dev && stat.ino === target.ino;
  if (root !== null) {
    const hit = walk(root, (file) => {
      const rel = relative(root, file).split(sep).join('/');
      const rule = protect.file(rel);
      return rule && same(statOf(file)) ? { path: rel, rule } : null;
    });
    if (hit) return hit;
  }
  for (const entry of wiring()) {
    const rule: ProtectionRule = { kind: 'wiring', what: entry.what };
    if (!entry.dir) {
      if (same(statOf(entry.path))) return { path: entry.path, rule };
      continue;
    }
    const hit = walk(entry.path, (file) => (same(statOf(file)) ? { path: file, rule } : null));
    if (hit) return hit;
  }
  return null;
}

function statOf(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** Depth-first over regular files under `top` (no .git, no node_modules), until `visit` answers. */
function walk(top: string, visit: (file: string) => HardLinkHit | null): HardLinkHit | null {
  let budget = WALK_BUDGET;
  const stack = [top];
  while (stack.length > 0 && budget > 0) {
    const dir = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      budget--;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.git' && entry.name !== 'node_modules') stack.push(path);
      } else if (entry.isFile()) {
        const hit = visit(path);
        if (hit) return hit;
      }
    }
  }
  return null;
}
