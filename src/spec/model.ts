import type { Sha256 } from '../core/digest.js';
import type { ExecMode, OnStop, Tier } from './fields.js';

/** What a check's command must do for its run to count. */
export type Expectation =
  | { readonly kind: 'exit'; readonly code: number }
  | { readonly kind: 'regex'; readonly pattern: string }
  | { readonly kind: 'file_exists'; readonly path: string };

/** A check after validation and defaults: everything the engine needs. */
export interface CheckDef {
  readonly id: string;
  /** argv; with `shell`, a single element holding the shell script. */
  readonly run: readonly string[];
  readonly shell: boolean;
  /** Workspace-relative, normalised, "." for the root. */
  readonly cwd: string;
  /** Seconds. */
  readonly timeout: number;
  /** Extra environment variable names passed through, sorted. */
  readonly env: readonly string[];
  readonly sources: readonly string[];
  readonly tests: readonly string[];
  readonly artifacts: readonly string[];
  /**
   * Globs of the files that decide what the command does (the runner's
   * manifest, lockfile and configs): fingerprinted as the `input` group and
   * pinned at `vouch allow`. A glob may match nothing: a file that appears
   * later counts. Never removed by `exclude`.
   */
  readonly inputs: readonly string[];
  readonly exclude: readonly string[];
  readonly expect: Expectation;
  readonly block: boolean;
  /** null: the check applies at every tier. */
  readonly tier: Tier | null;
  /** What a PASS proves, in the operator's words or a generated default. */
  readonly proves: string;
  readonly allowMissing: boolean;
  /** false: never stand on an earlier PASS of the same state; always run (engine/reuse.ts). Not in the definition digest: it changes whether the check runs, never what a run proves. */
  readonly cache: boolean;
  /**
   * true: never run beside another check (`vouch verify -j`, the gate):
   * for checks that share outputs, such as two that regenerate the same
   * file. Not in the definition digest: it changes when the check runs,
   * never what a run proves. Absent on a definition a task card froze
   * before it existed: not serial.
   */
  readonly serial?: boolean;
  /**
   * Run in a sandbox that shows the command only a private copy of its
   * declared files (src/hermetic): the check's own `hermetic`, else the
   * spec's top-level one. The verifier service's runs are hermetic whatever
   * this says.
   */
  readonly hermetic: boolean;
  /** A hermetic check keeps the network; false: loopback only. Never on the verifier service. */
  readonly network: boolean;
  /**
   * The spec's default excludes that apply to this check's sources and
   * tests (`**\/NAME/**` for each folder of DEFAULT_EXCLUDED_DIRS its own
   * globs do not name); empty with `default_excludes: false`. Absent on a
   * definition frozen before them (a task card's): none. Not in the
   * definition digest: the manifest says which files were hashed.
   */
  readonly defaultExcludes?: readonly string[];
  /**
   * `min_tests`: at least this many tests must run, as the runner's summary
   * counts them (engine/test-verdict.ts). Absent: unset (and on definitions
   * a task card froze before it existed).
   */
  readonly minTests?: number;
  /** `max_skips`: at most this many tests may be skipped. Absent: no more than at the check's recent passes. */
  readonly maxSkips?: number;
  /** SHA-256 of the fields that decide what a PASS means (definition.ts). */
  readonly definitionDigest: Sha256;
}

/** A loaded, valid vouch.yaml. */
export interface Spec {
  /** Absolute path of vouch.yaml. */
  readonly path: string;
  /** SHA-256 of the file's exact bytes: what `vouch allow` trusts. */
  readonly sha256: Sha256;
  readonly checks: readonly CheckDef[];
  readonly excerptBytes: number;
  /** `signing_key`: the key under VOUCH_HOME/keys that signs receipts here; null when unset. */
  readonly signingKey: string | null;
  /** `require_signature`: receipts without a valid signature by a trusted key never count as PASS. */
  readonly requireSignature: boolean;
  /** `ledger`: a PostgreSQL URL for a shared ledger (VOUCH_LEDGER overrides it); null: .vouch/ledger.db. */
  readonly ledger: string | null;
  /** `verifier_key`: the pinned public key (hex, lowercase) of the verifier service; null when unset. */
  readonly verifierKey: string | null;
  /** How the agent gate (Stop hook) behaves. */
  readonly gate: GatePolicy;
  /**
   * Workspace-relative globs the agent may not write, normalised. vouch.yaml
   * and .vouch/ are protected whatever this says (see guard/protected.ts).
   */
  readonly protect: readonly string[];
  /** `tool_configs`: extra tool configs pinned at allow (see trust/pins.ts), sorted. */
  readonly toolConfigs: readonly string[];
  /** `retention:`: what gc keeps when run with no flags, and whether whole logs are kept. */
  readonly retention: RetentionPolicy;
  /** `limits:`: the most one check's scope may hold; past it the check is UNKNOWN (scope_too_large) and not run. */
  readonly limits: ScopeLimits;
  /** `dedupe_window_seconds`: a rerun this soon after the first of identical outcomes carries `duplicate_of` (engine/dedupe.ts); 0: off. */
  readonly dedupeWindowSeconds: number;
  /** `exec:`: the policy of `vouch exec` (src/exec), with defaults applied. */
  readonly exec: ExecPolicy;
}

/** `exec:` in vouch.yaml, with defaults applied: what one command run through `vouch exec` may do. */
export interface ExecPolicy {
  /** false: loopback only (a network namespace of its own); true: the host network. */
  readonly network: boolean;
  /** Paths the command may write, normalised: workspace-relative ("." the root), or "~/..." under HOME. What vouches stays read-only inside them. */
  readonly writable: readonly string[];
  /** Program names the command may not run, sorted. */
  readonly deny: readonly string[];
  /** Seconds before the command's process group is killed. */
  readonly timeout: number;
  readonly mode: ExecMode;
  /** SHA-256 of the canonical policy (the fields above): the receipt's policy hash. */
  readonly digest: Sha256;
}

/** `retention:` in vouch.yaml, with defaults applied. */
export interface RetentionPolicy {
  /** gc removes receipts and trail entries older than this many days (the latest of each check stays). */
  readonly days: number;
  /** gc keeps at most this many receipts of each check. */
  readonly perCheck: number;
  /** gc removes the whole logs of receipts older than this many days, keeping the receipts; null: logs go with their receipts only. */
  readonly logDays: number | null;
  /** Whether each run's whole output is kept in .vouch/logs; false (or excerpt_bytes: 0): hashes and excerpts only. */
  readonly logs: boolean;
  /** A person's `vouch verify` runs a bounded gc once the policy would remove at least this many entries (retention/auto.ts); 0: never. */
  readonly auto: number;
}

/** `limits:` in vouch.yaml, with defaults applied. */
export interface ScopeLimits {
  /** Files one check's scope may hold (inputs, sources, tests and artifacts together). */
  readonly maxFiles: number;
  /** Bytes those files may add up to. */
  readonly maxBytes: number;
}

/** `gate:` in vouch.yaml, with defaults applied. */
export interface GatePolicy {
  /** verify: run stale or missing checks within the budget; require: only block and say how. */
  readonly onStop: OnStop;
  /** Consecutive blocks with no file change after which the stop is let through, recorded as escaped. */
  readonly maxBlocks: number;
  /** Seconds one Stop may spend running checks. */
  readonly budgetSeconds: number;
  /** Only a remote receipt signed by the spec's verifier_key counts (the gate runs nothing locally). */
  readonly requireRemote: boolean;
  /** A stop is blocked (box_off) when the session ran without its client's sandbox holding what vouches read-only. */
  readonly requireBox: boolean;
}

export const DEFAULT_TIMEOUT_SECONDS = 120;
export const DEFAULT_EXEC_TIMEOUT_SECONDS = 600;
export const DEFAULT_EXCERPT_BYTES = 4096;
export const DEFAULT_RETENTION: RetentionPolicy = { days: 30, perCheck: 200, logDays: null, logs: true, auto: 100 };
export const DEFAULT_LIMITS: ScopeLimits = { maxFiles: 100_000, maxBytes: 4 * 1024 ** 3 };
/**
 * Folders no check's sources or tests take in unless a glob names them:
 * virtualenvs, caches and build outputs (node_modules is never walked
 * unless named, whatever this says). `default_excludes: false` turns these
 * off.
 */
export const DEFAULT_EXCLUDED_DIRS: readonly string[] = [
  '.venv',
  'venv',
  '.tox',
  '.nox',
  '__pycache__',
  '.pytest_cache',
  '.mypy_cache',
  '.ruff_cache',
  '.cache',
  'dist',
  'build',
];
export const DEFAULT_GATE: GatePolicy = { onStop: 'verify', maxBlocks: 3, budgetSeconds: 120, requireRemote: false, requireBox: false };
