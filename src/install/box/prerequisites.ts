import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** What Claude Code's sandbox needs on this platform and is not here; empty when nothing is missing. */
export interface MissingPrerequisites {
  /** The platform has no sandbox Claude Code can use. */
  readonly unsupported: boolean;
  /** Programs to install (Linux: bubblewrap's `bwrap`, and `socat`, which carries the network proxy into it). */
  readonly programs: readonly string[];
}

/**
 * Claude Code sandboxes commands with bubblewrap on Linux (and needs socat
 * to bridge its network proxy in), and with Seatbelt on macOS, which is
 * built in. With `failIfUnavailable` a missing one stops Claude Code from
 * starting at all, so install checks first.
 */
export function missingPrerequisites(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): MissingPrerequisites {
  if (platform === 'darwin') return { unsupported: false, programs: [] };
  if (platform !== 'linux') return { unsupported: true, programs: [] };
  return { unsupported: false, programs: ['bwrap', 'socat'].filter((program) => !onPath(program, env.PATH ?? '')) };
}

function onPath(program: string, path: string): boolean {
  return path.split(delimiter).some((dir) => {
    if (dir === '') return false;
    try {
      accessSync(join(dir, program), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
