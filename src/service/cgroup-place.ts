import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where a worker makes its jobs' cgroups. Version 2 when the unified
 * hierarchy has the memory and pids controllers here; else version 1 (a
 * hybrid host: memory and pids mounted as hierarchies of their own), with
 * one parent directory per controller.
 */
export type CgroupPlace = { readonly version: 2; readonly parent: string } | { readonly version: 1; readonly memory: string; readonly pids: string };

export type PlaceFound = { readonly ok: true; readonly place: CgroupPlace } | { readonly ok: false; readonly why: string };

/** One line of /proc/self/mountinfo that matters here. */
interface CgroupMount {
  readonly root: string;
  readonly point: string;
  readonly type: 'cgroup' | 'cgroup2';
  readonly options: readonly string[];
}

/** The cgroup mounts in a mountinfo text: root, mount point, type, super options. */
export function cgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (!left || !right) continue;
    const fields = left.split(' ');
    const [type, , options] = right.split(' ');
    if ((type !== 'cgroup' && type !== 'cgroup2') || fields[3] === undefined || fields[4] === undefined) continue;
    mounts.push({ root: unescape(fields[3]), point: unescape(fields[4]), type, options: (options ?? '').split(',') });
  }
  return mounts;
}

/** This process's cgroup in each hierarchy (/proc/self/cgroup): '' for v2's, else each controller's name. */
export function ownCgroups(text: string): Map<string, string> {
  const own = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    for (const controller of match[1] === '' ? [''] : match[1]!.split(',')) own.set(controller, match[2]!);
  }
  return own;
}

/** The directory of `path` (a cgroup as /proc/self/cgroup names it) under a mount of that hierarchy; undefined when the mount does not show it. */
function dirIn(mount: CgroupMount, path: string): string | undefined {
  const root = mount.root === '/' ? '' : mount.root;
  if (root !== '' && path !== root && !path.startsWith(`${root}/`)) return undefined;
  const below = path.slice(root.length);
  return below === '' || below === '/' ? mount.point : join(mount.point, below);
}

/**
 * Finds where this process may make cgroups for its jobs, under its own
 * cgroup (root can; so can a worker given a delegated subtree, e.g. by
 * systemd's Delegate=yes). For version 2 a cgroup with processes in it
 * cannot hand controllers to its children (only the root cgroup can), so a
 * worker in a cgroup of its own moves itself into a leaf
 * (`vouch-worker-<pid>`) first and then enables memory and pids for the
 * jobs beside it. Returns why not, for the operator, when nothing can be made.
 */
export function findCgroupPlace(pid: number = process.pid): PlaceFound {
  let mountinfo: string;
  let cgroup: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    cgroup = readFileSync('/proc/self/cgroup', 'utf8');
  } catch (error) {
    return { ok: false, why: `cannot read /proc/self/cgroup or mountinfo (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  return placeFrom(mountinfo, cgroup, pid);
}

/** findCgroupPlace, given what /proc/self/mountinfo and /proc/self/cgroup say. */
export function placeFrom(mountinfo: string, cgroup: string, pid: number): PlaceFound {
  const mounts = cgroupMounts(mountinfo);
  const own = ownCgroups(cgroup);
  const v2 = placeV2(mounts, own, pid);
  if (v2.ok) return v2;
  const v1 = placeV1(mounts, own);
  if (v1.ok) return v1;
  return { ok: false, why: `${v2.why}; ${v1.why}` };
}

function placeV2(mounts: readonly CgroupMount[], own: ReadonlyMap<string, string>, pid: number): PlaceFound {
  const path = own.get('');
  const mount = mounts.find((m) => m.type === 'cgroup2');
  if (path === undefined || !mount) return { ok: false, why: 'no cgroup v2 hierarchy is mounted' };
  const dir = dirIn(mount, path);
  if (dir === undefined || !existsSync(join(dir, 'cgroup.procs')))
    return { ok: false, why: `this process's cgroup v2 (${path}) is not visible under ${mount.point}` };
  const available = words(join(dir, 'cgroup.controllers'));
  const missing = ['memory', 'pids'].filter((c) => !available.includes(c));
  if (missing.length > 0) return { ok: false, why: `cgroup v2 at ${dir} offers no ${missing.join(' or ')} controller (${available.join(' ') || 'none'})` };
  if (!['memory', 'pids'].every((c) => words(join(dir, 'cgroup.subtree_control')).includes(c))) {
    try {
      // Only the root cgroup may have processes of its own and controllers for its children.
      if (path !== '/') {
        const leaf = join(dir, `vouch-worker-${pid}`);
        if (!existsSync(leaf)) mkdirSync(leaf);
        writeFileSync(join(leaf, 'cgroup.procs'), String(pid));
      }
      writeFileSync(join(dir, 'cgroup.subtree_control'), '+memory +pids');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      const hint =
        code === 'EBUSY'
          ? ': other processes share this cgroup; give the worker one of its own (systemd: Delegate=yes)'
          : code === 'EACCES' || code === 'EPERM' || code === 'EROFS'
            ? ": it is not this user's (run as root, or delegate it: systemd Delegate=yes)"
            : '';
      return { ok: false, why: `cannot give cgroup v2 ${dir}'s children the memory and pids controllers (${code})${hint}` };
    }
  }
  return { ok: true, place: { version: 2, parent: dir } };
}

function placeV1(mounts: readonly CgroupMount[], own: ReadonlyMap<string, string>): PlaceFound {
  const dirs: string[] = [];
  for (const controller of ['memory', 'pids']) {
    const mount = mounts.find((m) => m.type === 'cgroup' && m.options.includes(controller));
    const path = own.get(controller);
    const dir = mount && path !== undefined ? dirIn(mount, path) : undefined;
    if (dir === undefined) return { ok: false, why: `no cgroup v1 ${controller} hierarchy holds this process` };
    if (!existsSync(join(dir, 'cgroup.procs'))) return { ok: false, why: `this process's cgroup v1 ${controller} directory (${dir}) is not there` };
    dirs.push(dir);
  }
  return { ok: true, place: { version: 1, memory: dirs[0]!, pids: dirs[1]! } };
}

function words(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}
