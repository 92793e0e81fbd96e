/**
 * How a check was confined, as its receipt records it: by the verifier
 * service (`service.sandbox`), or locally for a hermetic check (`sandbox`).
 */
export type SandboxRecord =
  | {
      readonly kind: 'bubblewrap';
      /** Always false on the verifier service; a hermetic check's `network: true` keeps it. */
      readonly network: boolean;
      /**
       * Every place a check could write, and how large it may grow; the
       * rest of its file system is read-only. Receipts of older verifiers
       * say only 'job directory'; a hermetic check says 'artifact folders'
       * (its artifacts' folders in its private copy: `view.writable`).
       */
      readonly writable: 'job directory' | 'artifact folders' | readonly WritablePlace[];
      /** What the worker saw hold when it probed the sandbox at start; absent on receipts of older verifiers and on local hermetic runs. */
      readonly confinement?: Confinement;
      /** What the check could see: absent where the whole upload was shown (verifiers before hermetic mode). */
      readonly view?: SandboxView;
    }
  | { readonly kind: 'none'; readonly why: string };

/** One writable place of a check's file system. */
export interface WritablePlace {
  /** `job directory` (the job's tree, home and tmp: its path on the host is not recorded), `/tmp`, `/dev/shm`. */
  readonly place: 'job directory' | '/tmp' | '/dev/shm';
  /** tmpfs: in memory, of at most `bytes`; disk: the host's disk, bounded only per file (`limits.file_bytes`). */
  readonly kind: 'tmpfs' | 'disk';
  readonly bytes: number | null;
}

/**
 * The tree a hermetic check saw: only a copy of its declared files (every
 * source, test and input of its manifest, verified against their recorded
 * SHA-256), the system directories read-only, an empty HOME and a private
 * /tmp. Nothing else of the workspace (or the upload) was there.
 */
export interface SandboxView {
  /** Files of the copy, and their bytes. */
  readonly files: number;
  readonly bytes: number;
  /** Workspace-relative folders the check could write ('' is the root); their artifacts were copied back. Empty on the service, where the job directory is writable. */
  readonly writable: readonly string[];
  /** HOME was an empty private directory. */
  readonly home: 'empty';
}

/** The layers of a bubblewrap sandbox, as observed from inside it. */
export interface Confinement {
  /** The host user and group the checks run as (never 0 when `gaps` is empty). */
  readonly uid: number;
  readonly gid: number;
  /** CapEff inside, as /proc/self/status shows it: all zeros when every capability is dropped. */
  readonly cap_eff: string;
  /** The seccomp deny-list loaded (e.g. "vouch-deny-1/x64"), or null when none held. */
  readonly seccomp: string | null;
  /** Per-process resource limits (prlimit) seen inside, or null when none held. */
  readonly limits: SandboxLimits | null;
  /** The job's bounds as one (a cgroup per job), as the kernel held them; null when no cgroup could be made. Absent on receipts of older verifiers. */
  readonly cgroup?: CgroupRecord | null;
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

/** One cgroup per job: every process of every check of the job counted together. */
export interface CgroupRecord {
  /** cgroup v2, or v1 (a hybrid host's memory and pids hierarchies). */
  readonly version: 1 | 2;
  /** memory.max: anonymous, shared and tmpfs pages together, no swap. */
  readonly memory_bytes: number;
  /** pids.max: processes and threads at once. */
  readonly processes: number;
}

/**
 * A layer that did not hold: host_root (checks run as host uid 0),
 * capabilities (some left), seccomp (no filter), limits (no prlimit),
 * cgroup (no cgroup per job: memory is bounded per process only, shared
 * memory not at all), job_disk (the job directory is on the host's disk,
 * bounded per file only: a worker that is not root cannot mount its tmpfs),
 * descriptors (a descriptor of the worker reached the check).
 */
export type SandboxGap = 'host_root' | 'capabilities' | 'seccomp' | 'limits' | 'cgroup' | 'job_disk' | 'descriptors';
