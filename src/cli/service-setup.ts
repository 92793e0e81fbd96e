import { join } from 'node:path';
import type { Pool } from 'pg';
import { fail } from '../core/problem.js';
import { keysDir, loadSigningKey, type SigningKey } from '../crypto/keystore.js';
import { requireCurrentSchema } from '../ledger/postgres/migrate.js';
import { openPool, pgError } from '../ledger/postgres/pool.js';
import { closeInheritedDescriptors } from '../service/descriptors.js';
import { probeJobDisk } from '../service/job-tree.js';
import { DEFAULT_LIMITS, detectSandbox, type Sandbox } from '../service/sandbox.js';
import { integerFlag } from './args.js';
import type { PgTarget } from './pg-target.js';

/** The server's signing key, from its own VOUCH_HOME; it never leaves the server. */
export function serviceKey(home: string, name: string | undefined, command: string): SigningKey {
  if (name === undefined) {
    return fail({
      code: 'usage',
      message: '--key NAME is required: the key under VOUCH_HOME/keys that signs every receipt this service records',
      where: `vouch ${command}`,
      hint: 'create one on the server with `vouch keys generate --name NAME`; give clients its public key (`vouch keys export-public NAME --format hex`)',
    });
  }
  const key = loadSigningKey(home, name, undefined);
  return key.ok ? key.value : fail(key.error);
}

/** What the sandbox must hide from every check: the server's VOUCH_HOME and its key file (which may be a link to elsewhere). */
export function serviceSecrets(home: string, key: SigningKey): string[] {
  return [home, join(keysDir(home), `${key.name}.key`)];
}

/** A pool on a migrated ledger, or the ledger problem. */
export async function servicePool(at: PgTarget, size: number): Promise<Pool> {
  const pool = await openPool(at, size);
  try {
    await requireCurrentSchema(pool, at);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw pgError(error, at);
  }
  return pool;
}

export function positiveFlag(command: string, name: string, value: string | undefined, fallback: number): number {
  return integerFlag(command, name, value, 1) ?? fallback;
}

/** Unpacking one job's archive may take this long (then archive_refused, too_slow). */
export const UNPACK_MS = 120_000;

/** The per-check limits and confinement flags `serve` and `worker` share. */
export const SANDBOX_FLAGS = {
  'allow-unconfined': { type: 'boolean' },
  'job-memory-mb': { type: 'string' },
  'job-processes': { type: 'string' },
  'job-file-mb': { type: 'string' },
  'job-disk-mb': { type: 'string' },
} as const;

/** A job directory's tmpfs, unless --job-disk-mb says otherwise: room for the largest tree (--max-tree-mb's default) and as much again. */
export const DEFAULT_JOB_DISK_MB = 2048;

/**
 * The sandbox this worker process runs checks in. A worker that cannot
 * confine them (no bubblewrap, or a layer that did not hold: checks as
 * host root, capabilities left, no seccomp filter, no limits, no cgroup
 * per job, no tmpfs per job directory, a descriptor of the worker reaching
 * the check) refuses to start, unless its operator says
 * --allow-unconfined; then every receipt records what held and what did
 * not. First of all, the descriptors this process inherited without
 * close-on-exec are closed: no check may inherit them.
 */
export async function workerSandbox(
  command: string,
  home: string,
  key: SigningKey,
  values: {
    readonly 'allow-unconfined'?: boolean;
    readonly 'job-memory-mb'?: string;
    readonly 'job-processes'?: string;
    readonly 'job-file-mb'?: string;
    readonly 'job-disk-mb'?: string;
  },
  maxTreeBytes: number,
): Promise<{ readonly sandbox: Sandbox; readonly closed: readonly number[] }> {
  const closed = closeInheritedDescriptors();
  const mb = 1024 * 1024;
  const fileBytes = positiveFlag(command, 'job-file-mb', values['job-file-mb'], DEFAULT_LIMITS.file_bytes / mb) * mb;
  const diskBytes = positiveFlag(command, 'job-disk-mb', values['job-disk-mb'], DEFAULT_JOB_DISK_MB) * mb;
  if (diskBytes < maxTreeBytes) {
    return fail({
      code: 'usage',
      message: 'a job directory must have room for the largest tree a job may unpack',
      where: `vouch ${command} --job-disk-mb`,
      expected: `at least ${maxTreeBytes / mb} (--max-tree-mb)`,
      found: String(diskBytes / mb),
    });
  }
  const sandbox = detectSandbox({
    jobDisk: await probeJobDisk(diskBytes),
    hide: serviceSecrets(home, key),
    limits: {
      memory_bytes: positiveFlag(command, 'job-memory-mb', values['job-memory-mb'], DEFAULT_LIMITS.memory_bytes / mb) * mb,
      processes: positiveFlag(command, 'job-processes', values['job-processes'], DEFAULT_LIMITS.processes),
      file_bytes: fileBytes,
      open_files: DEFAULT_LIMITS.open_files,
      tmp_bytes: Math.min(DEFAULT_LIMITS.tmp_bytes, fileBytes),
    },
  });
  if (sandbox.gaps.length > 0 && values['allow-unconfined'] !== true) {
    return fail({
      code: 'sandbox_unavailable',
      message: `this worker cannot confine the checks it would run: ${sandbox.notes.join('; ') || `not held: ${sandbox.gaps.join(', ')}`}`,
      where: `vouch ${command}`,
      expected:
        'bubblewrap with a user namespace, checks as a user other than root, no capabilities, the seccomp filter, prlimit, a cgroup and a tmpfs per job',
      found: sandbox.record.kind === 'none' ? 'no sandbox' : `not held: ${sandbox.gaps.join(', ')}`,
      hint:
        'install bubblewrap (and util-linux: setpriv, prlimit), allow unprivileged user namespaces, run the worker as root (its checks run as nobody: it mounts a tmpfs per job and makes a cgroup per job) or give a worker of its own user a delegated cgroup (systemd: Delegate=yes); ' +
        `--allow-unconfined runs checks with what holds (every receipt says what did not)${command === 'serve' ? '; --workers 0 serves the API only' : ''}`,
    });
  }
  return { sandbox, closed };
}

/** One line for the operator's log: how checks run here. */
export function describeSandbox(sandbox: Sandbox): string {
  const record = sandbox.record;
  if (record.kind === 'none') return `NONE (--allow-unconfined): ${record.why}`;
  const held = record.confinement;
  if (!held) return 'bubblewrap';
  const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
  const writable =
    typeof record.writable === 'string'
      ? record.writable
      : record.writable.map((w) => `${w.place} (${w.bytes === null ? 'disk, per file' : `${w.kind} ${mib(w.bytes)} MiB`})`).join(', ');
  const parts = [
    `bubblewrap: no network, writable only ${writable}`,
    `checks as uid ${held.uid}`,
    /^0+$/.test(held.cap_eff) ? 'no capabilities' : `capabilities ${held.cap_eff}`,
    held.seccomp ? `seccomp ${held.seccomp}` : 'no seccomp',
    held.limits
      ? `limits ${mib(held.limits.memory_bytes)} MiB data, ${held.limits.processes} processes, ${mib(held.limits.file_bytes)} MiB files`
      : 'no limits',
    held.cgroup ? `job cgroup v${held.cgroup.version} ${mib(held.cgroup.memory_bytes)} MiB memory, ${held.cgroup.processes} processes` : 'no job cgroup',
  ];
  return `${parts.join(', ')}${held.gaps.length > 0 ? `; NOT HELD (--allow-unconfined): ${held.gaps.join(', ')}: ${sandbox.notes.join('; ')}` : ''}`;
}
