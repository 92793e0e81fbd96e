/**
 * What every bubblewrap sandbox vouch starts has in common: the verifier
 * service's (src/service/sandbox.ts) and a hermetic check's
 * (src/hermetic). One list, so the two never disagree about which host
 * directories a check may read.
 */

/** Where bubblewrap is looked for: a fixed path, never one from PATH or the environment (an agent could put a fake one first). */
export const BWRAP = '/usr/bin/bwrap';

/** System directories a check may read (read-only); everything else of the host is absent. */
export const SYSTEM_READ_ONLY: readonly string[] = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];

/** The bubblewrap arguments that show the system directories read-only (each only where it exists). */
export function systemBinds(): string[] {
  return SYSTEM_READ_ONLY.flatMap((dir) => ['--ro-bind-try', dir, dir]);
}

/**
 * The namespaces of a sandbox: its own PID namespace (a fresh /proc that
 * shows only the check's processes), IPC, UTS and cgroup namespaces, a new
 * session (no terminal to inject into), and unless `network` a new network
 * namespace (loopback only). When the process that started bubblewrap dies,
 * so does the sandbox.
 */
export function namespaceArgs(network: boolean): string[] {
  return [
    '--die-with-parent',
    '--new-session',
    ...(network ? [] : ['--unshare-net']),
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
  ];
}
