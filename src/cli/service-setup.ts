import { join } from 'node:path';
import type { Pool } from 'pg';
import { fail } from '../core/problem.js';
import { keysDir, loadSigningKey, type SigningKey } from '../crypto/keystore.js';
import { requireCurrentSchema } from '../ledger/postgres/migrate.js';
import { openPool, pgError } from '../ledger/postgres/pool.js';
import { DEFAULT_LIMITS, detectSandbox, type Sandbox } from '../service/sandbox.js';
import { integerFlag } from './args.js';
import type { PgTarget } from './pg-target.js';

/** The server's signing key, from its own VOUCH_HOME; it never leaves the server. */
export function serviceKey(home: string, name: string | undefined, command: string): SigningKey {
  if (name === undefined) {
    return fail({
      code: 'usage',
      message: "--key NAME is required: the key under VOUCH_HOME/keys that signs every receipt this service records",
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
} as const;

/**
 * The sandbox this worker process runs checks in. A worker that cannot
 * confine them (no bubblewrap, or a layer that did not hold: checks as
 * host root, capabilities left, no seccomp filter, no limits) refuses to
 * start, unless its operator says --allow-unconfined; then every receipt
 * records what held and what did not.
 */
export function workerSandbox(
  command: string,
  home: string,
  key: SigningKey,
  values: { readonly 'allow-unconfined'?: boolean; readonly 'job-memory-mb'?: string; readonly 'job-processes'?: string; readonly 'job-file-mb'?: string },
): Sandbox {
  const mb = 1024 * 1024;
  const fileBytes = positiveFlag(command, 'job-file-mb', values['job-file-mb'], DEFAULT_LIMITS.file_bytes / mb) * mb;
  const sandbox = detectSandbox({
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
      expected: 'bubblewrap with a user namespace, checks as a user other than root, no capabilities, the seccomp filter and prlimit',
      found: sandbox.record.kind === 'none' ? 'no sandbox' : `not held: ${sandbox.gaps.join(', ')}`,
      hint:
        'install bubblewrap (and util-linux: setpriv, prlimit), allow unprivileged user namespaces, or run the worker as a user of its own; ' +
        `--allow-unconfined runs checks with what holds (every receipt says what did not)${command === 'serve' ? '; --workers 0 serves the API only' : ''}`,
    });
  }
  return sandbox;
}

/** One line for the operator's log: how checks run here. */
export function describeSandbox(sandbox: Sandbox): string {
  const record = sandbox.record;
  if (record.kind === 'none') return `NONE (--allow-unconfined): ${record.why}`;
  const held = record.confinement;
  if (!held) return 'bubblewrap';
  const parts = [
    'bubblewrap: no network, only the job directory writable',
    `checks as uid ${held.uid}`,
    /^0+$/.test(held.cap_eff) ? 'no capabilities' : `capabilities ${held.cap_eff}`,
    held.seccomp ? `seccomp ${held.seccomp}` : 'no seccomp',
    held.limits ? `limits ${Math.round(held.limits.memory_bytes / 1024 / 1024)} MiB data, ${held.limits.processes} processes, ${Math.round(held.limits.file_bytes / 1024 / 1024)} MiB files` : 'no limits',
  ];
  return `${parts.join(', ')}${held.gaps.length > 0 ? `; NOT HELD (--allow-unconfined): ${held.gaps.join(', ')}: ${sandbox.notes.join('; ')}` : ''}`;
}
