import { chmodSync, chownSync, lstatSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Gives the job directory to the checks' user: that user alone (and root)
 * may enter it (0700). Its parent, the worker's own directory, becomes
 * 0711: bubblewrap, already running as that user, must pass through it to
 * bind the job directory, but may not list it or read the worker's files
 * there (the seccomp program).
 */
export function handOver(jobRoot: string, to: { readonly uid: number; readonly gid: number }): void {
  chmodSync(dirname(jobRoot), 0o711);
  chownTree(jobRoot, to);
  chmodSync(jobRoot, 0o700);
}

/** Hands a directory the worker made (no links in it: unpacking refuses them) to the checks' user. */
function chownTree(dir: string, to: { readonly uid: number; readonly gid: number }): void {
  chownSync(dir, to.uid, to.gid);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (stat.isDirectory()) chownTree(path, to);
    else if (stat.isFile()) chownSync(path, to.uid, to.gid);
  }
}
