import type { SandboxLimits } from '../receipt/sandbox-record.js';
import { bwrapArgs } from './bwrap-args.js';
import type { SeccompFilter } from './seccomp.js';

/** One way of starting bubblewrap; detection tries the strongest first. */
export interface Layers {
  readonly userns: boolean;
  /** The ids inside the user namespace. */
  readonly inside: { readonly uid: number; readonly gid: number };
  /** Run bwrap as this host user (a root worker drops to it with setpriv). */
  readonly dropTo: { readonly uid: number; readonly gid: number } | null;
  readonly seccomp: SeccompFilter | null;
  /** Per-process limits, set with prlimit inside; null without prlimit. */
  readonly limits: SandboxLimits | null;
  /** Size of the private /tmp and /dev/shm. */
  readonly tmpBytes: number;
}

/** The tools a confined command line is made of. */
export interface Tools {
  readonly bwrap: string;
  readonly setpriv: string;
  readonly prlimit: string;
}

/** Where a check's process places itself before it drops its privileges: the job's cgroup, and the file it touches if it cannot. */
export interface Joining {
  /** cgroup.procs of each of the job's cgroups. */
  readonly procs: readonly string[];
  /** Created when a write to `procs` fails: the check is then not run (exit 125), and the worker knows why. */
  readonly marker: string;
}

/**
 * The worker's own shell, before any uid change: joins the job's cgroups
 * (its pid, which the exec chain keeps: setpriv, then bubblewrap), opens
 * the seccomp program for bubblewrap on descriptor 3, and execs the rest,
 * which comes as arguments and is never parsed by the shell.
 * Arguments: marker, seccomp file ('' for none), the cgroup.procs files, `--`, the command.
 */
const WRAPPER =
  'm=$1 s=$2; shift 2; while [ "$1" != -- ]; do echo $$ > "$1" || { : > "$m"; exit 125; }; shift; done; shift; if [ -n "$s" ]; then exec "$@" 3<"$s"; fi; exec "$@"';

/** The full command line of one confined check. */
export function commandLine(
  tools: Tools,
  masks: readonly string[],
  layers: Layers,
  filterPath: string | null,
  joining: Joining | null,
  jobRoot: string,
  cwd: string,
  command: readonly string[],
): string[] {
  const limits = layers.limits;
  const inner = limits
    ? [
        tools.prlimit,
        `--data=${limits.memory_bytes}`,
        `--nproc=${limits.processes}`,
        `--fsize=${limits.file_bytes}`,
        `--nofile=${limits.open_files}`,
        '--core=0',
        '--',
        ...command,
      ]
    : [...command];
  const sandboxed = [
    tools.bwrap,
    ...(layers.userns ? ['--unshare-user', '--disable-userns', '--uid', String(layers.inside.uid), '--gid', String(layers.inside.gid)] : []),
    '--cap-drop',
    'ALL',
    ...(filterPath ? ['--seccomp', '3'] : []),
    ...bwrapArgs(jobRoot, cwd, masks, layers.tmpBytes),
    ...inner,
  ];
  const dropped = layers.dropTo
    ? [
        tools.setpriv,
        `--reuid=${layers.dropTo.uid}`,
        `--regid=${layers.dropTo.gid}`,
        '--clear-groups',
        '--inh-caps=-all',
        '--bounding-set=-all',
        '--',
        ...sandboxed,
      ]
    : sandboxed;
  if (!filterPath && !joining) return dropped;
  return ['/bin/sh', '-c', WRAPPER, 'vouch-sandbox', joining?.marker ?? '', filterPath ?? '', ...(joining?.procs ?? []), '--', ...dropped];
}
