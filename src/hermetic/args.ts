import { join } from 'node:path';
import { BWRAP, namespaceArgs, systemBinds } from '../sandbox/system.js';

/** The check's private /tmp (a tmpfs of the sandbox), and HOME and Python's cache prefix inside it. */
export const INSIDE_TMP = '/tmp';
export const INSIDE_HOME = '/tmp/.vouch-home';
export const INSIDE_PYCACHE = '/tmp/.vouch-pycache';

/** What the sandbox's first command writes to descriptor 3 once bubblewrap has set everything up. */
export const START_MARK = 'started';

export interface HermeticArgsRequest {
  /** The private copy on the host. */
  readonly copyRoot: string;
  /** The workspace root: where the copy is shown inside, so paths read the same as outside. */
  readonly root: string;
  /** Workspace-relative folders of the copy the check may write. */
  readonly writable: readonly string[];
  readonly network: boolean;
  /** The check's cwd inside (an absolute path under `root`). */
  readonly cwd: string;
  readonly command: readonly string[];
}

/**
 * The command line of a hermetic check: bubblewrap with a user namespace
 * where the kernel allows one, no capabilities, its own PID, IPC, UTS and
 * cgroup namespaces, no network unless the check keeps it, the system
 * directories read-only, a fresh /dev and /proc, a private /tmp holding an
 * empty HOME, and at the workspace root's own path the private copy,
 * read-only but for the artifacts' folders. The rest of the host (the real
 * workspace, the user's home, other users' files) is not there at all.
 *
 * The first command inside writes the start mark to descriptor 3 and closes
 * it before the check starts, so the caller can tell bubblewrap failing to
 * set up (UNKNOWN) from the check failing (FAIL), and the check can neither
 * write the mark nor see the descriptor.
 */
export function hermeticArgs(request: HermeticArgsRequest): string[] {
  const { copyRoot, root, writable } = request;
  return [
    BWRAP,
    '--unshare-user-try',
    ...namespaceArgs(request.network),
    '--hostname',
    'vouch-hermetic',
    '--cap-drop',
    'ALL',
    ...systemBinds(),
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    INSIDE_TMP,
    '--dir',
    INSIDE_HOME,
    '--ro-bind',
    copyRoot,
    root,
    ...writable.flatMap((dir) => (dir === '' ? ['--bind', copyRoot, root] : ['--bind', join(copyRoot, dir), join(root, dir)])),
    '--chdir',
    request.cwd,
    '--',
    '/bin/sh',
    '-c',
    `printf ${START_MARK} >&3 && exec "$@" 3>&-`,
    'vouch-hermetic',
    ...request.command,
  ];
}
