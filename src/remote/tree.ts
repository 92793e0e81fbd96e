import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PackFile } from '../archive/pack.js';
import { computeFingerprint, INPUT_GROUPS } from '../engine/fingerprint.js';
import { isCredentialPath } from '../scope/credentials.js';
import { SPEC_FILE } from '../spec/load.js';
import type { CheckDef } from '../spec/model.js';

export interface PackedTree {
  readonly files: readonly PackFile[];
  /** Paths left out, and why (never sent). */
  readonly skipped: readonly { readonly path: string; readonly why: 'credential' | 'not_regular_file' | 'unreadable' }[];
}

/**
 * What is sent to the verifier: vouch.yaml, every git-tracked file, and
 * every file in the selected checks' declared sources and tests. Never a
 * credential-shaped path (whatever git tracks), never anything under .git
 * or .vouch, never a symlink or special file: only regular files, read now.
 */
export function collectTree(root: string, checks: readonly CheckDef[]): PackedTree {
  const paths = new Set<string>([SPEC_FILE, ...gitTracked(root)]);
  for (const check of checks) {
    const scanned = computeFingerprint(root, check, INPUT_GROUPS);
    for (const file of scanned.manifest.files) paths.add(file[0]);
  }
  const files: PackFile[] = [];
  const skipped: { path: string; why: 'credential' | 'not_regular_file' | 'unreadable' }[] = [];
  for (const path of [...paths].sort()) {
    if (path.startsWith('.git/') || path.startsWith('.vouch/')) continue;
    if (isCredentialPath(path)) {
      skipped.push({ path, why: 'credential' });
      continue;
    }
    const absolute = join(root, path);
    try {
      const stat = lstatSync(absolute);
      if (!stat.isFile()) {
        skipped.push({ path, why: 'not_regular_file' });
        continue;
      }
      files.push({ path, bytes: readFileSync(absolute), executable: (stat.mode & 0o100) !== 0 });
    } catch (error) {
      // A tracked file deleted in the work tree is simply not sent.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') skipped.push({ path, why: 'unreadable' });
    }
  }
  return { files, skipped };
}

/** Files git tracks here (none outside a git work tree, or without git). */
function gitTracked(root: string): string[] {
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--cached'], { cwd: root, encoding: 'buffer', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 256 * 1024 * 1024 });
    return out.toString('utf8').split('\0').filter((path) => path !== '');
  } catch {
    return [];
  }
}
