import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SandboxRecord } from '../receipt/receipt.js';

/** How a worker confines the checks it runs. */
export interface Sandbox {
  readonly record: SandboxRecord;
  /** For one job directory: rewrites a check's command to run confined there; absent when checks run unconfined. */
  readonly wrapFor?: (jobRoot: string) => (command: readonly string[], cwd: string) => readonly string[];
}

export interface SandboxOptions {
  /** The bubblewrap binary (default /usr/bin/bwrap). */
  readonly bwrap?: string;
  /**
   * Paths no check may see, whatever directory they lie in: the server's
   * VOUCH_HOME and its signing key file. Directories are covered by an
   * empty tmpfs, files by /dev/null.
   */
  readonly hide?: readonly string[];
}

/** System directories a check may read (read-only); everything else of the host is absent. */
const READ_ONLY = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

/**
 * bubblewrap when it is installed and works here (it needs user or mount
 * namespaces, which some containers forbid): tried once with the very
 * options the checks get. Otherwise no sandbox, and the reason, which the
 * worker prints and every receipt carries.
 */
export function detectSandbox(options: SandboxOptions = {}): Sandbox {
  const bwrap = options.bwrap ?? '/usr/bin/bwrap';
  if (!existsSync(bwrap)) {
    return { record: { kind: 'none', why: `bubblewrap is not installed (${bwrap} not found): checks run with the worker's own permissions, network and files` } };
  }
  const masks = maskArgs(options.hide ?? []);
  const probe = spawnSync(bwrap, [...bwrapArgs('/', '/', masks), 'true'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.status !== 0) {
    const said = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split('\n')[0];
    return { record: { kind: 'none', why: `bubblewrap is installed but does not work here (${said}): checks run with the worker's own permissions, network and files` } };
  }
  return {
    record: { kind: 'bubblewrap', network: false, writable: 'job directory' },
    wrapFor: (jobRoot) => (command, cwd) => [bwrap, ...bwrapArgs(jobRoot, cwd, masks), ...command],
  };
}

/**
 * An operator may keep VOUCH_HOME, or point the key file, under a directory
 * the sandbox binds (/etc, /opt): the allowlist alone would then show the
 * private key to every check. So each hidden path that exists is covered
 * where it really lies (symbolic links resolved: a link inside the sandbox
 * leads to the covered place).
 */
function maskArgs(hide: readonly string[]): string[] {
  const reals = new Map<string, boolean>();
  for (const path of hide) {
    try {
      const real = realpathSync(resolve(path));
      reals.set(real, statSync(real).isDirectory());
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
 * No network (a fresh network namespace has only loopback), its own PID,
 * IPC and UTS namespaces, a new session (no terminal to inject into), the
 * system directories read-only, a private /tmp, and the job directory the
 * only writable place. The host's home directories and the database's
 * sockets are simply not there; the worker's VOUCH_HOME and key file are
 * covered wherever they lie. The masks come after the system binds (to
 * cover what they bound) and before the job directory's bind (so a job
 * directory under VOUCH_HOME is still there). When the worker dies, so does
 * the sandbox.
 */
function bwrapArgs(jobRoot: string, cwd: string, masks: readonly string[]): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--hostname', 'vouch-job'];
  for (const dir of READ_ONLY) args.push('--ro-bind-try', dir, dir);
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', ...masks);
  if (jobRoot !== '/') args.push('--bind', jobRoot, jobRoot);
  args.push('--chdir', cwd, '--');
  return args;
}
