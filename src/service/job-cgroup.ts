import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CgroupPlace } from './cgroup-place.js';

/** What one job may use in all, every process of every check counted together. */
export interface JobBounds {
  /** Bytes of memory: anonymous, shared (shm, memfd, MAP_SHARED) and tmpfs pages alike; no swap. */
  readonly memoryBytes: number;
  /** Processes and threads at once. */
  readonly processes: number;
}

/** How often the kernel stepped in, as the cgroup counts it. */
export interface BoundCounters {
  /** Processes the kernel killed because the job was out of memory. */
  readonly oomKills: number;
  /** Forks and clones refused at the process bound. */
  readonly forksRefused: number;
}

/** A job cgroup's name: `vouch-job-<worker pid>-<random>`, as a job directory's, so a sweep can tell a dead worker's. */
export const JOB_CGROUP = /^vouch-job-(\d+)-[A-Za-z0-9]+$/;
/** The leaf a version 2 worker moves itself into (cgroup-place.ts). */
const WORKER_LEAF = /^vouch-worker-(\d+)$/;

/**
 * One job's cgroup: created before its first check, every check's
 * processes placed in it (the sandbox's wrapper writes its own pid into
 * `procs` before it becomes the check), removed when the job ends. Memory
 * counts what the kernel charges the job's processes (their anonymous and
 * shared pages, and the tmpfs pages they write: /tmp, /dev/shm and a job
 * directory on tmpfs), swap is not allowed, processes count threads.
 */
export class JobCgroup {
  private constructor(
    readonly place: CgroupPlace,
    /** The cgroup's directory in each hierarchy (one for version 2). */
    readonly dirs: readonly string[],
  ) {}

  /** Makes it with these bounds; throws when the kernel refuses (the caller says so). */
  static create(place: CgroupPlace, name: string, bounds: JobBounds): JobCgroup {
    const dirs = place.version === 2 ? [join(place.parent, name)] : [join(place.memory, name), join(place.pids, name)];
    const made = new JobCgroup(place, dirs);
    const created: string[] = [];
    try {
      for (const dir of dirs) {
        mkdirSync(dir);
        created.push(dir);
      }
      if (place.version === 2) {
        const dir = dirs[0]!;
        writeFileSync(join(dir, 'memory.max'), String(bounds.memoryBytes));
        if (existsSync(join(dir, 'memory.swap.max'))) writeFileSync(join(dir, 'memory.swap.max'), '0');
        writeFileSync(join(dir, 'pids.max'), String(bounds.processes));
      } else {
        const [memory, pids] = dirs as [string, string];
        writeFileSync(join(memory, 'memory.limit_in_bytes'), String(bounds.memoryBytes));
        // Memory and swap together, set after memory alone (it may not be below it); absent without swap accounting.
        if (existsSync(join(memory, 'memory.memsw.limit_in_bytes'))) writeFileSync(join(memory, 'memory.memsw.limit_in_bytes'), String(bounds.memoryBytes));
        writeFileSync(join(pids, 'pids.max'), String(bounds.processes));
      }
    } catch (error) {
      // Only what this call made: a directory of that name already there is not this job's.
      for (const dir of created) tryRmdir(dir);
      throw error;
    }
    return made;
  }

  /** The files a process writes its pid to, to join the job (each hierarchy's). */
  get procs(): string[] {
    return this.dirs.map((dir) => join(dir, 'cgroup.procs'));
  }

  /** The bounds as the kernel holds them now, read back. */
  bounds(): JobBounds {
    const [first, second] = this.dirs as [string, string | undefined];
    const memory = this.place.version === 2 ? read(join(first, 'memory.max')) : read(join(first, 'memory.limit_in_bytes'));
    const pids = read(join(second ?? first, 'pids.max'));
    return { memoryBytes: Number(memory.trim()), processes: Number(pids.trim()) };
  }

  counters(): BoundCounters {
    const [first, second] = this.dirs as [string, string | undefined];
    const memoryEvents = this.place.version === 2 ? read(join(first, 'memory.events')) : read(join(first, 'memory.oom_control'));
    return { oomKills: field(memoryEvents, 'oom_kill'), forksRefused: field(read(join(second ?? first, 'pids.events')), 'max') };
  }

  /** Kills whatever is still in it and removes it; false when it could not be removed (the sweep tries again). */
  async remove(): Promise<boolean> {
    return removeCgroup(this.dirs);
  }
}

/**
 * Removes what workers no longer running left in this place: their job
 * cgroups (anything still in one is killed first) and, for version 2, the
 * leaves they moved themselves into. Returns the directories removed.
 */
export async function sweepCgroups(place: CgroupPlace, alive: (pid: number) => boolean): Promise<string[]> {
  const removed: string[] = [];
  const parents = place.version === 2 ? [place.parent] : [place.memory, place.pids];
  for (const parent of parents) {
    let names: string[];
    try {
      names = readdirSync(parent);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = Number((JOB_CGROUP.exec(name) ?? WORKER_LEAF.exec(name))?.[1] ?? Number.NaN);
      if (Number.isNaN(pid) || pid === process.pid || alive(pid)) continue;
      if (await removeCgroup([join(parent, name)])) removed.push(join(parent, name));
    }
  }
  return removed;
}

async function removeCgroup(dirs: readonly string[]): Promise<boolean> {
  let gone = true;
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    // A check's processes die with its sandbox; a dead worker's may not have.
    for (let round = 0; round < 50; round++) {
      const left = pidsIn(dir);
      if (left.length === 0 && tryRmdir(dir)) break;
      if (existsSync(join(dir, 'cgroup.kill'))) {
        try {
          writeFileSync(join(dir, 'cgroup.kill'), '1');
        } catch {
          // Gone meanwhile.
        }
      } else {
        for (const pid of left) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // Already gone.
          }
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (existsSync(dir)) gone = false;
  }
  return gone;
}

function pidsIn(dir: string): number[] {
  return read(join(dir, 'cgroup.procs')).split('\n').filter(Boolean).map(Number);
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** A counter of a flat keyed file (`name value` lines); 0 when absent. */
function field(text: string, name: string): number {
  const match = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}
