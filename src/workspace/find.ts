import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';
import { SPEC_FILE } from './spec-file.js';

/** A directory with vouch.yaml at its root. */
export interface Workspace {
  /** Canonical absolute path (symlinks resolved), so trust and scopes agree. */
  readonly root: string;
  readonly specPath: string;
  /** Where vouch keeps its state for this workspace. */
  readonly stateDir: string;
}

export function workspaceAt(root: string): Workspace {
  return { root, specPath: join(root, SPEC_FILE), stateDir: join(root, '.vouch') };
}

/**
 * Walks up from `start` to the first directory holding vouch.yaml. With an
 * explicit directory (`-C DIR`) only that directory is considered.
 */
export function findWorkspace(start: string, explicit: boolean): Result<Workspace, Problem> {
  let dir: string;
  try {
    dir = realpathSync.native(resolve(start));
    if (!statSync(dir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
  } catch (error) {
    return err({
      code: 'usage',
      message: `cannot use ${start} as the working directory: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      where: start,
      expected: 'an existing directory',
    });
  }
  for (let current = dir; ; current = dirname(current)) {
    if (existsSync(join(current, SPEC_FILE))) return ok(workspaceAt(current));
    if (explicit || dirname(current) === current) break;
  }
  return err({
    code: 'workspace_not_found',
    message: `no ${SPEC_FILE} in ${dir}${explicit ? '' : ' or any parent directory'}`,
    where: dir,
    hint: 'run `vouch init` to print a starter spec, or `vouch init --write` to create and allow one',
  });
}
