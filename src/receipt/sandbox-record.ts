/** How the verifier service confined a job's checks, as its receipts record it. */
export type SandboxRecord =
  | {
      readonly kind: 'bubblewrap';
      readonly network: false;
      readonly writable: 'job directory';
      /** What the worker saw hold when it probed the sandbox at start; absent on receipts of older verifiers. */
      readonly confinement?: Confinement;
    }
  | { readonly kind: 'none'; readonly why: string };

/** The layers of a bubblewrap sandbox, as observed from inside it. */
export interface Confinement {
  /** The host user and group the checks run as (never 0 when `gaps` is empty). */
  readonly uid: number;
  readonly gid: number;
  /** CapEff inside, as /proc/self/status shows it: all zeros when every capability is dropped. */
  readonly cap_eff: string;
  /** The seccomp deny-list loaded (e.g. "vouch-deny-1/x64"), or null when none held. */
  readonly seccomp: string | null;
  /** Per-job resource limits (prlimit) seen inside, or null when none held. */
  readonly limits: SandboxLimits | null;
  /** What did not hold; a worker runs with any only when its operator passed --allow-unconfined. */
  readonly gaps: readonly SandboxGap[];
}

/** Resource limits set on every check (setrlimit, inherited by its children). */
export interface SandboxLimits {
  /** RLIMIT_DATA: bytes of writable memory per process. */
  readonly memory_bytes: number;
  /** RLIMIT_NPROC: processes and threads of the check's user namespace. */
  readonly processes: number;
  /** RLIMIT_FSIZE: bytes of one written file. */
  readonly file_bytes: number;
  /** RLIMIT_NOFILE: open files per process. */
  readonly open_files: number;
  /** Size of the private /tmp (a tmpfs). */
  readonly tmp_bytes: number;
}

/** A layer that did not hold: host_root (checks run as host uid 0), capabilities (some left), seccomp (no filter), limits (no prlimit). */
export type SandboxGap = 'host_root' | 'capabilities' | 'seccomp' | 'limits';
