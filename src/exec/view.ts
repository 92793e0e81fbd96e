import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import { err, ok, type Result } from '../core/result.js';
import { readOnlySet, type ReadOnlyPath } from '../install/box/read-only.js';
import { gitHookPath } from '../install/targets/index.js';
import type { ExecPolicy } from '../spec/model.js';

/** One writable path of the policy, where it is on the host. */
export interface WritablePath {
  /** As the policy says it: "." , "out", "~/.cache". */
  readonly as: string;
  /** Absolute and resolved through symlinks (a writable `out` that leads into .vouch/ is .vouch/). */
  readonly path: string;
}

/** What the command sees: the tree read-only, these paths writable, what vouches read-only inside them. */
export interface ExecView {
  readonly writable: readonly WritablePath[];
  /** Paths that vouch and exist, inside a writable path: bound read-only over it. */
  readonly held: readonly ReadOnlyPath[];
  /** Paths that vouch and do not exist yet, inside a writable path: a mount cannot hold what is not there, so the run is checked for them after. */
  readonly absent: readonly ReadOnlyPath[];
}

/** A writable path of the policy that is, or lies inside, what vouches: refused, never narrowed silently. */
export interface ViewProblem {
  readonly reason: 'writable_vouches';
  readonly index: number;
  readonly writable: string;
  readonly vouches: string;
}

/**
 * The sandbox's view of the host for one `vouch exec`: the policy's
 * writable paths, each resolved through symlinks, against the one list of
 * what vouches that the agent's box also holds read-only (readOnlySet).
 * A writable path that is what vouches, or inside it, is refused; what
 * vouches inside a writable path is held read-only over it.
 */
export function execView(policy: ExecPolicy, root: string, env: NodeJS.ProcessEnv, protect: readonly string[]): Result<ExecView, ViewProblem> {
  const gitHook = gitHookPath(root, 'pre-push');
  const set = readOnlySet(root, env, protect, gitHook === null ? null : dirname(gitHook));
  const home = env.HOME ?? '/nonexistent';
  const vouching = set.paths.map((entry) => ({ entry, real: realOrSelf(entry.path) }));
  const writable: WritablePath[] = [];
  for (const [index, as] of policy.writable.entries()) {
    const at = as === '~' ? home : as.startsWith('~/') ? join(home, as.slice(2)) : as === '.' ? root : join(root, as);
    const path = realOrSelf(at);
    const hit = vouching.find(({ entry, real }) => [entry.path, real].some((place) => path === place || (entry.dir && within(path, place))));
    if (hit) return err({ reason: 'writable_vouches', index, writable: as, vouches: hit.entry.what });
    writable.push({ as, path });
  }
  const held: ReadOnlyPath[] = [];
  const absent: ReadOnlyPath[] = [];
  for (const { entry, real } of vouching) {
    if (!writable.some((w) => within(real, w.path) || within(entry.path, w.path))) continue;
    if (existsSync(entry.path)) held.push({ ...entry, path: real });
    else absent.push(entry);
  }
  return ok({ writable, held, absent });
}

function within(path: string, dir: string): boolean {
  return path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}

/** The path resolved through symlinks, its deepest existing parent's when it does not exist yet. */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(realOrSelf(parent), basename(path));
  }
}
