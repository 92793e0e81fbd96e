import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Confinement, SandboxGap, SandboxLimits, SandboxRecord } from '../receipt/sandbox-record.js';
import { bwrapArgs, maskArgs } from './bwrap-args.js';
import { denyListFilter, type SeccompFilter } from './seccomp.js';

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
  /** Gives a job's writable directory to the checks' user (when the worker is root, checks run as another user). */
  readonly handOver?: (jobRoot: string) => void;
  /**
   * For one job: rewrites a check's command to run confined, with
   * `jobRoot` the only writable place and `privateDir` a directory of the
   * worker's that the sandbox never shows (the seccomp program is put
   * there). Absent when checks run unconfined.
   */
  readonly wrapFor?: (jobRoot: string, privateDir: string) => (command: readonly string[], cwd: string) => readonly string[];
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
   * empty tmpfs, files by /dev/null.
   */
  readonly hide?: readonly string[];
  /** Per-check resource limits. */
  readonly limits?: SandboxLimits;
  /** The host user a root worker runs checks as (default nobody, 65534:65534). */
  readonly user?: { readonly uid: number; readonly gid: number };
}

export const DEFAULT_LIMITS: SandboxLimits = {
  memory_bytes: 4 * 1024 ** 3,
  processes: 1024,
  file_bytes: 1024 ** 3,
  open_files: 4096,
  tmp_bytes: 512 * 1024 ** 2,
};
const NOBODY = { uid: 65534, gid: 65534 };

/** One way of starting bubblewrap; detection tries the strongest first. */
interface Layers {
  readonly userns: boolean;
  /** The ids inside the user namespace. */
  readonly inside: { readonly uid: number; readonly gid: number };
  /** Run bwrap as this host user (a root worker drops to it with setpriv). */
  readonly dropTo: { readonly uid: number; readonly gid: number } | null;
  readonly seccomp: SeccompFilter | null;
  readonly limits: SandboxLimits | null;
}

/**
 * bubblewrap, with every layer that works here: a user namespace, the
 * checks' host user not root (a root worker drops to nobody first: in a
 * user namespace made by root, uid 0 outside still owns root's files),
 * every capability dropped, no new user namespaces inside, the seccomp
 * deny-list, and resource limits. Each way is tried once, strongest first,
 * with a probe that reads /proc/self/status and /proc/self/limits from
 * inside: the record says what was seen to hold, not what was asked for.
 * Without bubblewrap, or where it cannot start, kind 'none' and why.
 */
export function detectSandbox(options: SandboxOptions = {}): Sandbox {
  const bwrap = options.bwrap ?? '/usr/bin/bwrap';
  const none = (why: string): Sandbox => ({ record: { kind: 'none', why }, gaps: ['host_root', 'capabilities', 'seccomp', 'limits'], notes: [why] });
  if (!existsSync(bwrap)) return none(`bubblewrap is not installed (${bwrap} not found): checks would run with the worker's own permissions, network and files`);

  const root = process.getuid?.() === 0;
  const setpriv = options.setpriv ?? '/usr/bin/setpriv';
  const prlimit = options.prlimit ?? '/usr/bin/prlimit';
  const notes: string[] = [];
  const user = options.user ?? NOBODY;
  const canDrop = root && existsSync(setpriv);
  if (root && !canDrop) notes.push(`the worker runs as root and ${setpriv} is missing: checks would run as host uid 0`);
  const filter = denyListFilter() ?? null;
  if (!filter) notes.push(`no seccomp filter is defined for ${process.arch}`);
  const limits = existsSync(prlimit) ? (options.limits ?? DEFAULT_LIMITS) : null;
  if (!limits) notes.push(`${prlimit} is missing: checks would run without resource limits`);

  const hide = options.hide ?? [];
  const inside = root ? user : { uid: process.getuid?.() ?? user.uid, gid: process.getgid?.() ?? user.gid };
  const dropTo = canDrop ? user : null;
  const ladder: Layers[] = [
    { userns: true, inside, dropTo, seccomp: filter, limits },
    ...(filter ? [{ userns: true, inside, dropTo, seccomp: null, limits }] : []),
    // Without a user namespace only root can start bubblewrap: the weakest way, kept so an operator can see (and opt into) it.
    ...(root ? [{ userns: false, inside, dropTo: null, seccomp: null, limits }] : []),
  ];
  const failures: string[] = [];
  for (const layers of ladder) {
    const masks = maskArgs(hide, layers.dropTo ? (path) => reachableBy(setpriv, layers.dropTo!, path) : undefined);
    const probed = probe(bwrap, setpriv, prlimit, masks, layers);
    if (typeof probed === 'string') {
      failures.push(probed);
      continue;
    }
    const confinement = probed;
    if (layers !== ladder[0]) notes.push(`bubblewrap refused the stronger layers here (${failures.join('; ')})`);
    if (confinement.gaps.includes('capabilities')) notes.push(`checks keep capabilities (CapEff ${confinement.cap_eff})`);
    if (confinement.gaps.includes('seccomp') && filter) notes.push('the seccomp filter did not load');
    return {
      record: { kind: 'bubblewrap', network: false, writable: 'job directory', confinement },
      gaps: confinement.gaps,
      notes,
      ...(layers.dropTo && { handOver: (jobRoot: string) => handOver(jobRoot, layers.dropTo!) }),
      wrapFor: (jobRoot, privateDir) => {
        const filterPath = layers.seccomp ? join(privateDir, 'seccomp.bpf') : null;
        if (filterPath && layers.seccomp) writeFileSync(filterPath, layers.seccomp.program, { mode: 0o600 });
        return (command, cwd) => commandLine(bwrap, setpriv, prlimit, masks, layers, filterPath, jobRoot, cwd, command);
      },
    };
  }
  return none(`bubblewrap is installed but does not work here (${failures.join('; ')}): checks would run with the worker's own permissions, network and files`);
}

/** Whether `user` can reach `path` at all (the kernel's answer, ACLs included): asked as that user. */
function reachableBy(setpriv: string, user: { readonly uid: number; readonly gid: number }, path: string): boolean {
  const asked = spawnSync(setpriv, [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--', '/bin/sh', '-c', 'test -e "$0"', path], { timeout: 10_000 });
  // Anything but a clear "no" counts as reachable: the path is then covered, as for a worker that is not root.
  return asked.status !== 1;
}

/** The full command line of one confined check. */
function commandLine(
  bwrap: string,
  setpriv: string,
  prlimit: string,
  masks: readonly string[],
  layers: Layers,
  filterPath: string | null,
  jobRoot: string,
  cwd: string,
  command: readonly string[],
): string[] {
  const limits = layers.limits;
  const inner = limits
    ? [prlimit, `--data=${limits.memory_bytes}`, `--nproc=${limits.processes}`, `--fsize=${limits.file_bytes}`, `--nofile=${limits.open_files}`, '--core=0', '--', ...command]
    : [...command];
  const sandboxed = [
    bwrap,
    ...(layers.userns ? ['--unshare-user', '--disable-userns', '--uid', String(layers.inside.uid), '--gid', String(layers.inside.gid)] : []),
    '--cap-drop',
    'ALL',
    ...(filterPath ? ['--seccomp', '3'] : []),
    ...bwrapArgs(jobRoot, cwd, masks, limits?.tmp_bytes ?? null),
    ...inner,
  ];
  const dropped = layers.dropTo
    ? [setpriv, `--reuid=${layers.dropTo.uid}`, `--regid=${layers.dropTo.gid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--', ...sandboxed]
    : sandboxed;
  // bubblewrap reads the seccomp program from a descriptor: the worker's own shell opens it (before any uid change) and
  // execs the rest, which is passed as arguments and never parsed by the shell.
  return filterPath ? ['/bin/sh', '-c', 'exec "$@" 3<"$0"', filterPath, ...dropped] : dropped;
}

/** Starts the sandbox once with these layers and reads, from inside, what holds. */
function probe(bwrap: string, setpriv: string, prlimit: string, masks: readonly string[], layers: Layers): Confinement | string {
  const base = mkdtempSync(join(tmpdir(), 'vouch-sandbox-probe-'));
  try {
    const jobRoot = join(base, 'job');
    mkdirSync(jobRoot);
    if (layers.dropTo) handOver(jobRoot, layers.dropTo);
    const filterPath = layers.seccomp ? join(base, 'seccomp.bpf') : null;
    if (filterPath && layers.seccomp) writeFileSync(filterPath, layers.seccomp.program, { mode: 0o600 });
    const argv = commandLine(bwrap, setpriv, prlimit, masks, layers, filterPath, jobRoot, jobRoot, ['/bin/sh', '-c', 'cat /proc/self/status /proc/self/limits']);
    const ran = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 10_000 });
    if (ran.status !== 0) return (ran.stderr || ran.error?.message || `exit ${ran.status}`).trim().split('\n')[0]!;
    return observed(ran.stdout, layers);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** What /proc/self/status and /proc/self/limits, read inside, say held. */
function observed(text: string, layers: Layers): Confinement {
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(text)?.[1];
  const limit = (name: string) => {
    const value = new RegExp(`^Max ${name}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(text)?.[1];
    return value === undefined || value === 'unlimited' ? Number.POSITIVE_INFINITY : Number(value);
  };
  const capEff = field('CapEff') ?? 'unknown';
  const seccompMode = field('Seccomp');
  const uid = layers.dropTo?.uid ?? process.getuid?.() ?? -1;
  const gid = layers.dropTo?.gid ?? process.getgid?.() ?? -1;
  const want = layers.limits;
  const limitsHeld =
    want !== null &&
    limit('data size') <= want.memory_bytes &&
    limit('processes') <= want.processes &&
    limit('file size') <= want.file_bytes &&
    limit('open files') <= want.open_files;
  const seccomp = layers.seccomp && seccompMode === '2' ? layers.seccomp.policy : null;
  const gaps: SandboxGap[] = [];
  if (uid === 0) gaps.push('host_root');
  if (!/^0+$/.test(capEff)) gaps.push('capabilities');
  if (!seccomp) gaps.push('seccomp');
  if (!limitsHeld) gaps.push('limits');
  return { uid, gid, cap_eff: capEff, seccomp, limits: limitsHeld ? want : null, gaps };
}

/**
 * Gives the job directory to the checks' user: that user alone (and root)
 * may enter it (0700). Its parent, the worker's own directory, becomes
 * 0711: bubblewrap, already running as that user, must pass through it to
 * bind the job directory, but may not list it or read the worker's files
 * there (the seccomp program).
 */
function handOver(jobRoot: string, to: { readonly uid: number; readonly gid: number }): void {
  chmodSync(dirname(jobRoot), 0o711);
  chownTree(jobRoot, to);
  chmodSync(jobRoot, 0o700);
}

/** Hands a directory the worker made (no links in it: unpacking refuses them) to the checks' user. */
function chownTree(dir: string, to: { readonly uid: number; readonly gid: number }): void {
  chownSync(dir, to.uid, to.gid);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) chownTree(path, to);
    else if (stat.isFile()) chownSync(path, to.uid, to.gid);
  }
}
