import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { SandboxRecord } from '../receipt/receipt.js';

/** How a worker confines the checks it runs. */
export interface Sandbox {
  readonly record: SandboxRecord;
  /** For one job directory: rewrites a check's command to run confined there; absent when checks run unconfined. */
  readonly wrapFor?: (jobRoot: string) => (command: readonly string[], cwd: string) => readonly string[];
}

/** System directories a check may read (read-only); everything else of the host is absent. */
const READ_ONLY = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

/**
 * bubblewrap when it is installed and works here (it needs user or mount
 * namespaces, which some containers forbid): tried once with the very
 * options the checks get. Otherwise no sandbox, and the reason, which the
 * worker prints and every receipt carries.
 */
export function detectSandbox(bwrap = '/usr/bin/bwrap'): Sandbox {
  if (!existsSync(bwrap)) {
    return { record: { kind: 'none', why: `bubblewrap is not installed (${bwrap} not found): checks run with the worker's own permissions, network and files` } };
  }
  const probe = spawnSync(bwrap, [...bwrapArgs('/', '/'), 'true'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.status !== 0) {
    const said = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split('\n')[0];
    return { record: { kind: 'none', why: `bubblewrap is installed but does not work here (${said}): checks run with the worker's own permissions, network and files` } };
  }
  return {
    record: { kind: 'bubblewrap', network: false, writable: 'job directory' },
    wrapFor: (jobRoot) => (command, cwd) => [bwrap, ...bwrapArgs(jobRoot, cwd), ...command],
  };
}

/**
 * No network (a fresh network namespace has only loopback), its own PID,
 * IPC and UTS namespaces, a new session (no terminal to inject into), the
 * system directories read-only, a private /tmp, and the job directory the
 * only writable place. The host's home directories, the worker's VOUCH_HOME
 * (its signing key) and the database's sockets are simply not there. When
 * the worker dies, so does the sandbox.
 */
function bwrapArgs(jobRoot: string, cwd: string): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--hostname', 'vouch-job'];
  for (const dir of READ_ONLY) args.push('--ro-bind-try', dir, dir);
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  if (jobRoot !== '/') args.push('--bind', jobRoot, jobRoot);
  args.push('--chdir', cwd, '--');
  return args;
}
