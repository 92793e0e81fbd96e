import { START_MARK } from '../hermetic/args.js';
import { BWRAP, namespaceArgs } from '../sandbox/system.js';
import type { ExecView } from './view.js';

export interface ExecArgsRequest {
  readonly view: ExecView;
  /** false: a network namespace of its own (loopback only). */
  readonly network: boolean;
  /** Host paths under /tmp the command must still see (the workspace, HOME): /tmp itself is private. */
  readonly keepUnderTmp: readonly string[];
  /** Real paths of denied programs: each is /dev/null inside. */
  readonly hidden: readonly string[];
  readonly cwd: string;
  readonly command: readonly string[];
}

/**
 * The command line of one `vouch exec`: bubblewrap with the host's tree
 * read-only (the command sees the files it works on, at their own paths),
 * a private /tmp, a fresh /dev and /proc, its own PID, IPC, UTS and cgroup
 * namespaces, no capabilities, no network unless the policy keeps it; the
 * policy's writable paths bound writable, then what vouches inside them
 * bound read-only over them (later mounts win), and each denied program
 * replaced by /dev/null. The first command inside writes the start mark to
 * descriptor 3 (as a hermetic check's does), so bubblewrap failing to set
 * up is told from the command failing.
 */
export function execArgs(request: ExecArgsRequest): string[] {
  const { view } = request;
  return [
    BWRAP,
    '--unshare-user-try',
    ...namespaceArgs(request.network),
    '--hostname',
    'vouch-exec',
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    '--tmpfs',
    '/tmp',
    ...request.keepUnderTmp.flatMap((path) => ['--ro-bind-try', path, path]),
    ...view.writable.flatMap((w) => ['--bind-try', w.path, w.path]),
    ...view.held.flatMap((held) => ['--ro-bind', held.path, held.path]),
    ...request.hidden.flatMap((path) => ['--ro-bind', '/dev/null', path]),
    '--chdir',
    request.cwd,
    '--',
    '/bin/sh',
    '-c',
    `printf ${START_MARK} >&3 && exec "$@" 3>&-`,
    'vouch-exec',
    ...request.command,
  ];
}
