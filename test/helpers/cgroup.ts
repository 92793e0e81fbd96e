import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cgroupMounts, ownCgroups } from '../../src/service/cgroup-place.js';

/**
 * A cgroup delegated to `uid` as systemd's Delegate=yes would give one to a
 * service of its own user: made below this process's cgroup (a root test),
 * handed to that user, with a shell line that moves a process into it.
 * Version 1 here (memory and pids hierarchies: a hybrid host); version 2
 * where its controllers are in the unified hierarchy and this process sits
 * in its root. Undefined where neither can be made (the test then expects
 * the `cgroup` gap).
 */
export function delegatedCgroup(uid: number, gid: number, name: string): { readonly enter: string; remove(): void } | undefined {
  const mounts = cgroupMounts(readFileSync('/proc/self/mountinfo', 'utf8'));
  const own = ownCgroups(readFileSync('/proc/self/cgroup', 'utf8'));
  const dirs: string[] = [];
  const v1 = ['memory', 'pids'].map((controller) => {
    const mount = mounts.find((m) => m.type === 'cgroup' && m.options.includes(controller));
    const path = own.get(controller);
    return mount && path !== undefined && mount.root === '/' ? join(mount.point, path) : undefined;
  });
  if (v1.every((dir) => dir !== undefined)) dirs.push(...v1.map((dir) => join(dir, name)));
  else {
    const unified = mounts.find((m) => m.type === 'cgroup2');
    if (!unified || own.get('') !== '/') return undefined;
    const controllers = readFileSync(join(unified.point, 'cgroup.controllers'), 'utf8');
    if (!/\bmemory\b/.test(controllers) || !/\bpids\b/.test(controllers)) return undefined;
    writeFileSync(join(unified.point, 'cgroup.subtree_control'), '+memory +pids');
    dirs.push(join(unified.point, name));
  }
  for (const dir of dirs) {
    mkdirSync(dir);
    chownSync(dir, uid, gid);
    for (const file of readdirSync(dir)) if (/^cgroup\.(procs|subtree_control|threads)$|^tasks$/.test(file)) chownSync(join(dir, file), uid, gid);
  }
  return {
    enter: dirs.map((dir) => `echo $$ > ${join(dir, 'cgroup.procs')}`).join(' && '),
    remove: () => {
      // Children first (what the worker made and did not remove), then the delegated cgroup itself.
      for (const dir of dirs) {
        if (!existsSync(dir)) continue;
        for (const child of readdirSync(dir, { withFileTypes: true })) if (child.isDirectory()) rmdirSync(join(dir, child.name));
        rmdirSync(dir);
      }
    },
  };
}
