import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

export type Removed = { readonly ok: true } | { readonly ok: false; readonly detail: string };

/**
 * Removes a directory tree a check may have made hostile: deeper than
 * PATH_MAX (Node's rmSync fails there with ENAMETOOLONG), directories
 * without permissions, mounts left below it. Mounts at or below it are
 * detached first (a job's tmpfs: removing it frees the whole tree at
 * once); then coreutils' `rm -rf --one-file-system`, which walks by
 * descriptor (openat/unlinkat, so no path grows long) and never crosses
 * into another file system; if that fails (a directory of the worker's own
 * user made unreadable by a check), the tree is made the owner's again
 * (`chmod -R u+rwx`) and removed once more. Asynchronous: a large tree
 * must not stop the worker's lease renewals. Never throws.
 */
export async function removeTree(path: string): Promise<Removed> {
  if (!existsSync(path)) return { ok: true };
  for (const point of mountsAtOrBelow(path).reverse()) {
    const detached = await run('umount', ['--lazy', point]);
    if (!detached.ok) return { ok: false, detail: `umount ${point}: ${detached.detail}` };
  }
  let removed = await run('rm', ['-rf', '--one-file-system', '--', path]);
  if (!removed.ok && existsSync(path)) {
    await run('chmod', ['-R', 'u+rwx', '--', path]);
    removed = await run('rm', ['-rf', '--one-file-system', '--', path]);
  }
  if (!removed.ok && existsSync(path)) return removed;
  return existsSync(path) ? { ok: false, detail: 'still there after rm -rf' } : { ok: true };
}

/** The mount points at or below `path`, outermost first (/proc/self/mountinfo, octal escapes undone). */
export function mountsAtOrBelow(path: string): string[] {
  let text: string;
  try {
    text = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  const points: string[] = [];
  for (const line of text.split('\n')) {
    const field = line.split(' ')[4];
    if (field === undefined) continue;
    const point = field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
    if (point === path || point.startsWith(`${path}/`)) points.push(point);
  }
  return points;
}

/** Runs a system tool (from /usr/bin or /bin, never the job's PATH) and says how it ended. */
function run(tool: string, args: readonly string[]): Promise<Removed> {
  const file = existsSync(`/usr/bin/${tool}`) ? `/usr/bin/${tool}` : `/bin/${tool}`;
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString();
    });
    child.on('error', (error) => resolve({ ok: false, detail: `${file}: ${error.message}` }));
    child.on('close', (code, signal) => {
      if (code === 0) resolve({ ok: true });
      else resolve({ ok: false, detail: `${file} ${code === null ? `killed by ${signal}` : `exit ${code}`}: ${stderr.trim().split('\n')[0] ?? ''}` });
    });
  });
}
