import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cgroupMounts, ownCgroups, placeFrom } from './cgroup-place.js';

/** This machine's kind of host: cgroup v2 mounted without controllers, v1 memory and pids beside it. */
const HYBRID_MOUNTS = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`;
const HYBRID_CGROUP = `9:name=systemd:/
8:pids:/
4:memory:/process_api/5ec597dd
3:cpu,cpuacct:/
0::/
`;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * A cgroup v2 hierarchy laid out as files in a temporary directory: the
 * kernel's rules are not there (this machine has no v2 controllers to try
 * them on), only the worker's reading of it and what it writes.
 */
function unified(cgroups: Record<string, { controllers: string; subtree?: string }>): string {
  const root = mkdtempSync(join(tmpdir(), 'vouch-cgroup2-'));
  dirs.push(root);
  for (const [path, files] of Object.entries(cgroups)) {
    const dir = join(root, path);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'cgroup.controllers'), files.controllers);
    writeFileSync(join(dir, 'cgroup.subtree_control'), files.subtree ?? '');
    writeFileSync(join(dir, 'cgroup.procs'), '');
  }
  return root;
}

describe('where a worker makes its job cgroups', () => {
  it('reads mountinfo and /proc/self/cgroup: mounts by type and options, a cgroup per controller (joined controllers apart)', () => {
    expect(cgroupMounts(HYBRID_MOUNTS).map((m) => [m.type, m.point])).toEqual([
      ['cgroup', '/sys/fs/cgroup/memory'],
      ['cgroup', '/sys/fs/cgroup/pids'],
      ['cgroup2', '/sys/fs/cgroup/unified'],
    ]);
    const own = ownCgroups(HYBRID_CGROUP);
    expect(own.get('memory')).toBe('/process_api/5ec597dd');
    expect(own.get('cpuacct')).toBe('/');
    expect(own.get('')).toBe('/');
  });

  it("a hybrid host (v2 without controllers): v1, below the worker's own memory and pids cgroups; and says why not v2", () => {
    const root = unified({ '': { controllers: '' } });
    const mounts = HYBRID_MOUNTS.replace('/sys/fs/cgroup/unified', root).replaceAll('/sys/fs/cgroup/memory', root).replaceAll('/sys/fs/cgroup/pids', root);
    mkdirSync(join(root, 'process_api', '5ec597dd'), { recursive: true });
    writeFileSync(join(root, 'process_api', '5ec597dd', 'cgroup.procs'), '');
    expect(placeFrom(mounts, HYBRID_CGROUP, 1234)).toEqual({ ok: true, place: { version: 1, memory: join(root, 'process_api', '5ec597dd'), pids: root } });
  });

  it('v2 with memory and pids in a cgroup of its own (systemd Delegate=yes): the worker moves itself into a leaf, then gives the jobs beside it memory and pids', () => {
    const root = unified({ '': { controllers: 'cpu memory pids' }, 'system.slice/vouch.service': { controllers: 'memory pids' } });
    const found = placeFrom(`41 31 0:38 / ${root} rw - cgroup2 cgroup2 rw\n`, '0::/system.slice/vouch.service\n', 4321);
    const service = join(root, 'system.slice', 'vouch.service');
    expect(found).toEqual({ ok: true, place: { version: 2, parent: service } });
    expect(readFileSync(join(service, 'vouch-worker-4321', 'cgroup.procs'), 'utf8')).toBe('4321');
    expect(readFileSync(join(service, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +pids');
  });

  it('v2 in the root cgroup: no leaf is needed', () => {
    const root = unified({ '': { controllers: 'memory pids' } });
    expect(placeFrom(`41 31 0:38 / ${root} rw - cgroup2 cgroup2 rw\n`, '0::/\n', 99)).toEqual({ ok: true, place: { version: 2, parent: root } });
    expect(readFileSync(join(root, 'cgroup.subtree_control'), 'utf8')).toBe('+memory +pids');
  });

  it('no controller anywhere: none, and why, for the operator', () => {
    const root = unified({ '': { controllers: 'cpu' } });
    const found = placeFrom(`41 31 0:38 / ${root} rw - cgroup2 cgroup2 rw\n`, '0::/\n', 1);
    expect(found).toEqual({
      ok: false,
      why: `cgroup v2 at ${root} offers no memory or pids controller (cpu); no cgroup v1 memory hierarchy holds this process`,
    });
  });
});
