import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PackFile } from '../archive/pack.js';
import { isolatedGit } from '../core/git-command.js';
import { computeFingerprints, INPUT_GROUPS } from '../engine/fingerprint.js';
import { isCredentialPath } from '../scope/credentials.js';
import type { Snapshot } from '../scope/snapshot.js';
import { SPEC_FILE } from '../workspace/spec-file.js';
import type { CheckDef } from '../spec/model.js';

export interface PackedTree {
  readonly files: readonly PackFile[];
  /** Paths left out, and why (never sent). */
  readonly skipped: readonly { readonly path: string; readonly why: 'credential' | 'not_regular_file' | 'unreadable' }[];
}

/**
 * What is sent to the verifier: vouch.yaml, every git-tracked file, and
 * every file in the selected checks' declared sources and tests. Never a
 * credential-shaped path (whatever git tracks), never a .git (directory or
 * file, at any depth) or anything under .vouch, never a symlink or special file: only regular files, read now.
 * The scopes are found in one walk of `snapshot`.
 */
export async function collectTree(snapshot: Snapshot, checks: readonly CheckDef[]): Promise<PackedTree> {
  const root = snapshot.root;
  const paths = new Set<string>([SPEC_FILE, ...gitTracked(root)]);
  const scanned = await computeFingerprints(
    snapshot,
    checks.map((check) => ({ check, groups: INPUT_GROUPS })),
  );
  for (const fingerprint of scanned) for (const file of fingerprint.manifest.files) paths.add(file[0]);
  const files: PackFile[] = [];
  const skipped: { path: string; why: 'credential' | 'not_regular_file' | 'unreadable' }[] = [];
  for (const path of [...paths].sort()) {
    // The verifier refuses an upload holding .git anywhere (a submodule's .git file too) or .vouch at its root.
    if (path.split('/').some((segment) => segment.toLowerCase() === '.git') || path.startsWith('.vouch/')) continue;
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

/** Files git tracks here (none outside a git work tree, or without git), read with none of the repository's configuration (core/git-command.ts). */
function gitTracked(root: string): string[] {
  const isolated = isolatedGit(root, process.env);
  if (isolated === null) return [];
  try {
    const out = execFileSync('git', isolated.args(['ls-files', '-z', '--cached']), {
      cwd: root,
      env: isolated.env,
      encoding: 'buffer',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 256 * 1024 * 1024,
    });
    return out
      .toString('utf8')
      .split('\0')
      .filter((path) => path !== '');
  } catch {
    return [];
  } finally {
    isolated.close();
  }
}
