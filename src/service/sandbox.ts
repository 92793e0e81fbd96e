import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, statfsSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Confinement, SandboxGap, SandboxLimits, SandboxRecord, WritablePlace } from '../receipt/sandbox-record.js';
import { maskArgs } from './bwrap-args.js';
import { findCgroupPlace, type CgroupPlace, type PlaceFound } from './cgroup-place.js';
import { handOver } from './hand-over.js';
import { JOB_CGROUP, JobCgroup, type BoundCounters, type JobBounds } from './job-cgroup.js';
import type { JobDisk } from './job-tree.js';
import { commandLine, type Layers, type Tools } from './sandbox-command.js';
import { probe } from './sandbox-probe.js';
import { denyListFilter } from './seccomp.js';

/** How a worker confines the checks it runs. */
export interface Sandbox {
  readonly record: SandboxRecord;
  /**
   * What did not hold (empty when every layer did). A worker refuses jobs
   * unless this is empty or its operator passed --allow-unconfined; with
   * kind 'none' nothing held at all.
   */
  readonly gaps: readonly SandboxGap[];
  /** Says, for the operator's log, why each gap is there. */
  readonly notes: readonly string[];
  /** Where each job's directory lives (a tmpfs of its own, or the disk). */
  readonly jobDisk: JobDisk;
  /** Where job cgroups are made; undefined when none can be (the `cgroup` gap). */
  readonly cgroupPlace?: CgroupPlace;
  /** Gives a job's writable directory to the checks' user (when the worker is root, checks run as another user). */
  readonly handOver?: (jobRoot: string) => void;
  /**
   * Confines one job: `jobRoot` the only writable place of the host's,
   * `privateDir` a directory of the worker's that the sandbox never shows
   * (the seccomp program is put there). Absent when checks run unconfined.
   */
  readonly forJob?: (jobRoot: string, privateDir: string) => JobSandbox;
}

/** One job's confinement: its cgroup, and the command line of each of its checks. */
export interface JobSandbox {
  /** Rewrites a check's command to run confined, in the job's cgroup. */
  readonly wrap: (command: readonly string[], cwd: string) => readonly string[];
  /**
   * After each check: why its run met one of the job's bounds (the kernel
   * killed a process for the job's memory, refused a fork at its process
   * bound, the job directory filled up), or could not be put under them;
   * null when it did not.
   */
  readonly boundReached: () => string | null;
  /** Kills what is left in the job's cgroup and removes it; never throws. False when it is left for the sweep. */
  readonly close: () => Promise<boolean>;
}

export interface SandboxOptions {
  /** The bubblewrap binary (default /usr/bin/bwrap). */
  readonly bwrap?: string;
  /** setpriv (util-linux), used by a root worker to run checks as `user` (default /usr/bin/setpriv). */
  readonly setpriv?: string;
  /** prlimit (util-linux), run inside the sandbox to set the limits (default /usr/bin/prlimit). */
  readonly prlimit?: string;
  /**
   * Paths no check may see, whatever directory they lie in: the server's
   * VOUCH_HOME and its signing key file. Directories are covered by an
   * empty read-only tmpfs, files by /dev/null.
   */
  readonly hide?: readonly string[];
  /** Per-check resource limits; memory and processes also bound the whole job (its cgroup). */
  readonly limits?: SandboxLimits;
  /** The host user a root worker runs checks as (default nobody, 65534:65534). */
  readonly user?: { readonly uid: number; readonly gid: number };
  /** Where job directories live (default: the disk, a gap). */
  readonly jobDisk?: JobDisk;
  /** Where job cgroups go (default: found from /proc/self/cgroup, cgroup-place.ts). */
  readonly cgroupPlace?: PlaceFound;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  memory_bytes: 4 * 1024 ** 3,
  processes: 1024,
  file_bytes: 1024 ** 3,
  open_files: 4096,
  tmp_bytes: 512 * 1024 ** 2,
};
const NOBODY = { uid: 65534, gid: 65534 };
const ALL_GAPS: readonly SandboxGap[] = ['host_root', 'capabilities', 'seccomp', 'limits', 'cgroup', 'job_disk', 'descriptors'];

/**
 * bubblewrap, with every layer that works here: a user namespace, the
 * checks' host user not root (a root worker drops to nobody first: in a
 * user namespace made by root, uid 0 outside still owns root's files),
 * every capability dropped, no new user namespaces inside, the seccomp
 * deny-list, per-process limits, a cgroup per job and a tmpfs per job
 * directory. Each way is tried once, strongest first, with a probe that
 * reads /proc/self/status, /proc/self/limits and its descriptors from
 * inside, in a cgroup made as a job's would be: the record says what was
 * seen to hold, not what was asked for. Without bubblewrap, or where it
 * cannot start, kind 'none' and why.
 */
export function detectSandbox(options: SandboxOptions = {}): Sandbox {
  const jobDisk = options.jobDisk ?? { kind: 'disk', why: 'no tmpfs per job was asked for' };
  const bwrap = options.bwrap ?? '/usr/bin/bwrap';
  const none = (why: string): Sandbox => ({ record: { kind: 'none', why }, gaps: ALL_GAPS, notes: [why], jobDisk });
  if (!existsSync(bwrap))
    return none(`bubblewrap is not installed (${bwrap} not found): checks would run with the worker's own permissions, network and files`);

  const root = process.getuid?.() === 0;
  const tools: Tools = { bwrap, setpriv: options.setpriv ?? '/usr/bin/setpriv', prlimit: options.prlimit ?? '/usr/bin/prlimit' };
  const notes: string[] = [];
  const user = options.user ?? NOBODY;
  const canDrop = root && existsSync(tools.setpriv);
  if (root && !canDrop) notes.push(`the worker runs as root and ${tools.setpriv} is missing: checks would run as host uid 0`);
  const filter = denyListFilter() ?? null;
  if (!filter) notes.push(`no seccomp filter is defined for ${process.arch}`);
  const wanted = options.limits ?? DEFAULT_LIMITS;
  const limits = existsSync(tools.prlimit) ? wanted : null;
  if (!limits) notes.push(`${tools.prlimit} is missing: checks would run without resource limits`);
  const bounds: JobBounds = { memoryBytes: wanted.memory_bytes, processes: wanted.processes };
  if (jobDisk.kind === 'disk') notes.push(`the job directory is on the host's disk, bounded only per file: ${jobDisk.why}`);

  const found = options.cgroupPlace ?? findCgroupPlace();
  let place = found.ok ? found.place : undefined;
  if (!found.ok) notes.push(`no cgroup per job: ${found.why}`);
  const probeCgroup = place ? tryCgroup(place, `vouch-job-${process.pid}-probe${randomBytes(4).toString('hex')}`, bounds) : undefined;
  if (place && typeof probeCgroup === 'string') {
    notes.push(`no cgroup per job: ${probeCgroup}`);
    place = undefined;
  }
  const cgroup = probeCgroup instanceof JobCgroup ? probeCgroup : null;

  const hide = options.hide ?? [];
  const inside = root ? user : { uid: process.getuid?.() ?? user.uid, gid: process.getgid?.() ?? user.gid };
  const dropTo = canDrop ? user : null;
  const tmpBytes = wanted.tmp_bytes;
  const ladder: Layers[] = [
    { userns: true, inside, dropTo, seccomp: filter, limits, tmpBytes },
    ...(filter ? [{ userns: true, inside, dropTo, seccomp: null, limits, tmpBytes }] : []),
    // Without a user namespace only root can start bubblewrap: the weakest way, kept so an operator can see (and opt into) it.
    ...(root ? [{ userns: false, inside, dropTo: null, seccomp: null, limits, tmpBytes }] : []),
  ];
  const failures: string[] = [];
  try {
    for (const layers of ladder) {
      const masks = maskArgs(hide, layers.dropTo ? (path) => reachableBy(tools.setpriv, layers.dropTo!, path) : undefined);
      const probed = probe(tools, masks, layers, cgroup);
      if (typeof probed === 'string') {
        failures.push(probed);
        continue;
      }
      const confinement: Confinement = { ...probed, gaps: [...probed.gaps, ...(jobDisk.kind === 'disk' ? (['job_disk'] as const) : [])] };
      if (layers !== ladder[0]) notes.push(`bubblewrap refused the stronger layers here (${failures.join('; ')})`);
      if (confinement.gaps.includes('capabilities')) notes.push(`checks keep capabilities (CapEff ${confinement.cap_eff})`);
      if (confinement.gaps.includes('seccomp') && filter) notes.push('the seccomp filter did not load');
      if (confinement.gaps.includes('descriptors')) notes.push('a descriptor of the worker reached the check');
      if (confinement.gaps.includes('cgroup') && cgroup) notes.push('no cgroup per job: the probe could not be bounded by one');
      const heldPlace = confinement.cgroup ? place : undefined;
      return {
        record: { kind: 'bubblewrap', network: false, writable: writablePlaces(jobDisk, tmpBytes), confinement },
        gaps: confinement.gaps,
        notes,
        jobDisk,
        ...(heldPlace && { cgroupPlace: heldPlace }),
        ...(layers.dropTo && { handOver: (jobRoot: string) => handOver(jobRoot, layers.dropTo!) }),
        forJob: (jobRoot, privateDir) => jobSandbox(tools, masks, layers, heldPlace, bounds, jobDisk, jobRoot, privateDir),
      };
    }
  } finally {
    void cgroup?.remove();
  }
  return none(`bubblewrap is installed but does not work here (${failures.join('; ')}): checks would run with the worker's own permissions, network and files`);
}

/** What a check may write, and how large each place may grow. */
function writablePlaces(jobDisk: JobDisk, tmpBytes: number): WritablePlace[] {
  return [
    jobDisk.kind === 'tmpfs' ? { place: 'job directory', kind: 'tmpfs', bytes: jobDisk.bytes } : { place: 'job directory', kind: 'disk', bytes: null },
    { place: '/tmp', kind: 'tmpfs', bytes: tmpBytes },
    { place: '/dev/shm', kind: 'tmpfs', bytes: tmpBytes },
  ];
}

/** The job's confinement, given what the worker found to hold at start. */
function jobSandbox(
  tools: Tools,
  masks: readonly string[],
  layers: Layers,
  place: CgroupPlace | undefined,
  bounds: JobBounds,
  jobDisk: JobDisk,
  jobRoot: string,
  privateDir: string,
): JobSandbox {
  const filterPath = layers.seccomp ? join(privateDir, 'seccomp.bpf') : null;
  if (filterPath && layers.seccomp) writeFileSync(filterPath, layers.seccomp.program, { mode: 0o600 });
  const name = JOB_CGROUP.test(basename(privateDir)) ? basename(privateDir) : `vouch-job-${process.pid}-${randomBytes(6).toString('hex')}`;
  const cgroup = place ? tryCgroup(place, name, bounds) : undefined;
  const marker = join(privateDir, 'cgroup-unjoined');
  let before: BoundCounters = { oomKills: 0, forksRefused: 0 };
  return {
    wrap: (command, cwd) => {
      // The worker found at start that it can bound its jobs: a job it cannot bound does not run.
      if (typeof cgroup === 'string') return ['/bin/sh', '-c', 'exit 125'];
      before = cgroup?.counters() ?? before;
      return commandLine(tools, masks, layers, filterPath, cgroup ? { procs: cgroup.procs, marker } : null, jobRoot, cwd, command);
    },
    boundReached: () => {
      if (typeof cgroup === 'string') return `the job's cgroup could not be made (${cgroup}): the check was not run`;
      if (existsSync(marker)) return "the check could not be placed in the job's cgroup: it was not run";
      const reached: string[] = [];
      if (cgroup) {
        const after = cgroup.counters();
        const kills = after.oomKills - before.oomKills;
        const forks = after.forksRefused - before.forksRefused;
        if (kills > 0)
          reached.push(
            `the job's memory bound (${mib(bounds.memoryBytes)} MiB: anonymous, shared and tmpfs pages together) was reached: the kernel killed ${kills} process${kills === 1 ? '' : 'es'}`,
          );
        if (forks > 0) reached.push(`the job's process bound (${bounds.processes} processes and threads) refused ${forks} fork${forks === 1 ? '' : 's'}`);
      }
      if (jobDisk.kind === 'tmpfs' && isFull(privateDir)) reached.push(`the job directory's ${mib(jobDisk.bytes)} MiB are full`);
      return reached.length > 0 ? reached.join('; ') : null;
    },
    close: async () => (cgroup instanceof JobCgroup ? cgroup.remove() : true),
  };
}

function tryCgroup(place: CgroupPlace, name: string, bounds: JobBounds): JobCgroup | string {
  try {
    return JobCgroup.create(place, name, bounds);
  } catch (error) {
    const where = place.version === 2 ? place.parent : `${place.memory} and ${place.pids}`;
    return `cannot make cgroup ${name} in ${where} (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
}

/** Less than a MiB, or no inode, left on the job's tmpfs. */
function isFull(dir: string): boolean {
  try {
    const stat = statfsSync(dir);
    return stat.bavail * stat.bsize < 1024 * 1024 || stat.ffree === 0;
  } catch {
    return false;
  }
}

function mib(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}

/** Whether `user` can reach `path` at all (the kernel's answer, ACLs included): asked as that user. */
function reachableBy(setpriv: string, user: { readonly uid: number; readonly gid: number }, path: string): boolean {
  const asked = spawnSync(setpriv, [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', '/bin/sh', '-c', 'test -e "$0"', path], {
    timeout: 10_000,
  });
  // Anything but a clear "no" counts as reachable: the path is then covered, as for a worker that is not root.
  return asked.status !== 1;
}
