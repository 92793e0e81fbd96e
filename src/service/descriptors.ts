import { closeSync, readdirSync, readFileSync } from 'node:fs';

/** O_CLOEXEC as /proc/PID/fdinfo prints it (octal flags; the same value on every Linux architecture vouch runs on). */
const O_CLOEXEC = 0o2000000;

/**
 * Closes the descriptors above 2 that this process inherited without
 * close-on-exec (`exec 20<secret` in the shell that started the worker, a
 * pipe of a supervisor): every child would inherit them too, and
 * bubblewrap passes them on to the check. Node opens every descriptor of
 * its own close-on-exec, so what lacks the flag at start was inherited and
 * is not used here; Node's IPC channel (NODE_CHANNEL_FD) is kept. Linux
 * only (/proc); elsewhere nothing is closed. Returns the descriptors closed.
 */
export function closeInheritedDescriptors(env: NodeJS.ProcessEnv = process.env): number[] {
  const keep = Number(env.NODE_CHANNEL_FD ?? Number.NaN);
  let names: string[];
  try {
    names = readdirSync('/proc/self/fd');
  } catch {
    return [];
  }
  const closed: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2 || fd === keep) continue;
    let flags: number;
    try {
      const match = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
      if (!match) continue;
      flags = parseInt(match[1]!, 8);
    } catch {
      // Gone already (the descriptor that listed the directory).
      continue;
    }
    if (flags & O_CLOEXEC) continue;
    try {
      closeSync(fd);
      closed.push(fd);
    } catch {
      // Closed meanwhile.
    }
  }
  return closed;
}
