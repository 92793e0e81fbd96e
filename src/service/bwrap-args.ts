import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { namespaceArgs, systemBinds } from '../sandbox/system.js';

/**
 * An operator may keep VOUCH_HOME, or point the key file, under a directory
 * the sandbox binds (/etc, /opt): the allowlist alone would then show the
 * private key to every check. So each hidden path that exists is covered
 * where it really lies (symbolic links resolved: a link inside the sandbox
 * leads to the covered place). A path the checks' user cannot reach at all
 * (`reachable` says no: a root worker's 0700 home) needs no cover, and
 * could not get one: bubblewrap, running as that user, cannot reach it either.
 */
export function maskArgs(hide: readonly string[], reachable: (path: string) => boolean = () => true): string[] {
  const reals = new Map<string, boolean>();
  for (const path of hide) {
    try {
      const real = realpathSync(resolve(path));
      if (reachable(real)) reals.set(real, statSync(real).isDirectory());
    } catch {
      // Absent on the host: absent inside too.
    }
  }
  const dirs = [...reals].filter(([, isDir]) => isDir).map(([real]) => real);
  // A path inside a covered directory is already gone; covering it again would recreate it there.
  const under = (path: string) => dirs.some((dir) => path !== dir && (dir === '/' || path.startsWith(`${dir}/`)));
  const args: string[] = [];
  for (const [real, isDir] of reals) {
    if (under(real)) continue;
    if (isDir) args.push('--tmpfs', real);
    else args.push('--ro-bind', '/dev/null', real);
  }
  return args;
}

/**
 * The namespaces and the file system of the sandbox: no network (a fresh
 * network namespace has only loopback), its own PID (so a fresh /proc that
 * shows only the job's processes, never the worker), IPC, UTS and cgroup
 * namespaces, a new session (no terminal to inject into), the system
 * directories read-only, a private /tmp and /dev/shm of `tmpBytes` each,
 * and the job directory the only other writable place. The host's home
 * directories and the database's sockets are simply not there; the
 * worker's VOUCH_HOME and key file are covered wherever they lie. The masks
 * come after the system binds (to cover what they bound) and before the job
 * directory's bind (so a job directory under VOUCH_HOME is still there).
 * Once everything is in place, `/` (bubblewrap's own tmpfs), `/dev` and the
 * masks' tmpfs are made read-only: none of them has a size, so each would
 * otherwise hold as much as the host's memory. When the worker dies, so
 * does the sandbox.
 */
export function bwrapArgs(jobRoot: string, cwd: string, masks: readonly string[], tmpBytes: number): string[] {
  const args = [...namespaceArgs(false), '--hostname', 'vouch-job'];
  args.push(...systemBinds());
  const size = ['--size', String(tmpBytes)];
  args.push('--dev', '/dev', ...size, '--tmpfs', '/dev/shm', '--proc', '/proc', ...size, '--tmpfs', '/tmp', ...masks);
  if (jobRoot !== '/') args.push('--bind', jobRoot, jobRoot);
  args.push(...seal(masks), '--remount-ro', '/dev', '--remount-ro', '/', '--chdir', cwd, '--');
  return args;
}

/** A mask that covers a directory is an empty tmpfs: read-only once the job directory is bound (which may lie below it). */
function seal(masks: readonly string[]): string[] {
  const args: string[] = [];
  masks.forEach((arg, i) => {
    if (arg === '--tmpfs' && masks[i + 1] !== undefined) args.push('--remount-ro', masks[i + 1]!);
  });
  return args;
}
