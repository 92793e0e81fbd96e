import { readFileSync, realpathSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { sha256, type Sha256 } from '../core/digest.js';
import { resolveExecutable } from '../runner/executable.js';

/** Where programs are looked for besides the caller's PATH: the system's own directories, which the agent cannot put first. */
export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Files larger than this are not read to compare with a denied program (no program vouch denies is that large). */
const MAX_COMPARED_BYTES = 256 * 1024 * 1024;

/** A denied program as it is installed here: every place its name leads, and the bytes it is made of. */
export interface DeniedProgram {
  readonly name: string;
  /** Real paths (symlinks resolved) of the program, on the system PATH and the caller's. */
  readonly places: readonly string[];
  /** SHA-256 of each place's bytes, with its size: a copy under another name is the same program. */
  readonly copies: readonly { readonly size: number; readonly sha256: Sha256 }[];
}

/** Finds each denied name on the system PATH and on the caller's. */
export function findDenied(deny: readonly string[], callerPath: string | undefined, cwd: string): DeniedProgram[] {
  return deny.map((name) => {
    const places = new Set<string>();
    for (const path of [SYSTEM_PATH, callerPath ?? '']) {
      for (const dir of path.split(':')) {
        const found = dir === '' ? null : resolveExecutable(name, cwd, dir);
        const real = found === null ? null : realOrNull(found);
        if (real !== null) places.add(real);
      }
    }
    const copies = [...places].flatMap((place) => {
      const size = sizeOf(place);
      const digest = size === null || size > MAX_COMPARED_BYTES ? null : digestOf(place);
      return size === null || digest === null ? [] : [{ size, sha256: digest }];
    });
    return { name, places: [...places].sort(), copies };
  });
}

/**
 * Which denied program this command is, if any: by the name it is called
 * (`curl`), by where that name leads on the caller's PATH (a link `fetch`
 * to curl), or by its bytes (a copy of curl called `ls`). A name the
 * caller's PATH finds first, in a folder of the agent's own, is still
 * judged by what it is.
 */
export function deniedMatch(name: string, cwd: string, callerPath: string | undefined, denied: readonly DeniedProgram[]): DeniedProgram | null {
  const byName = denied.find((program) => program.name === basename(name));
  if (byName) return byName;
  const found = resolveExecutable(name, cwd, callerPath);
  const real = found === null ? null : realOrNull(found);
  if (real === null) return null;
  const byPlace = denied.find((program) => program.places.includes(real));
  if (byPlace) return byPlace;
  const size = sizeOf(real);
  if (size === null || !denied.some((program) => program.copies.some((copy) => copy.size === size))) return null;
  const digest = digestOf(real);
  return denied.find((program) => program.copies.some((copy) => copy.size === size && copy.sha256 === digest)) ?? null;
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

function sizeOf(path: string): number | null {
  try {
    const stat = statSync(path);
    return stat.isFile() ? stat.size : null;
  } catch {
    return null;
  }
}

function digestOf(path: string): Sha256 | null {
  try {
    return sha256(readFileSync(path));
  } catch {
    return null;
  }
}
