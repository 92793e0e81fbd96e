import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Problem } from '../core/problem.js';
import { err, ok, type Result } from '../core/result.js';

/** Writes a bundle whole or not at all (temp file + rename): a reader never sees half of one. */
export function writeBundle(path: string, text: string): Result<void, Problem> {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, text, { flag: 'wx' });
    renameSync(temp, path);
    return ok(undefined);
  } catch (error) {
    rmSync(temp, { force: true });
    return err({ code: 'write_failed', message: `cannot write the bundle: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, where: path });
  }
}
