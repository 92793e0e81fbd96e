import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve, sep } from 'node:path';
import { codexHome } from '../../clients/codex.js';
import type { BoxKind } from '../../clients/descriptor.js';
import { unreachable } from '../../core/unreachable.js';

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

/** What a client's box needs on this machine and does not find. */
export function boxPrerequisites(box: BoxKind, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): MissingPrerequisites {
  switch (box) {
    case 'claude-code-sandbox':
      return missingPrerequisites(env, platform);
    case 'codex-permissions':
      // Codex brings its own bubblewrap (Linux) and uses Seatbelt (macOS) or its own sandbox (Windows).
      return { unsupported: !['linux', 'darwin', 'win32'].includes(platform), programs: [] };
    default:
      return unreachable(box);
  }
}

/**
 * Codex (0.171.0) refuses to set up its sandbox helpers under the temporary
 * directory: with CODEX_HOME there, every boxed command fails to start
 * ("execvp codex-linux-sandbox"). Said at install, not refused: the box
 * still holds (nothing runs unconfined), the agent just cannot work.
 */
export function codexHomeNote(env: NodeJS.ProcessEnv): string | null {
  const home = resolve(codexHome(env));
  const temps = [...new Set([resolve(tmpdir()), '/tmp'])];
  if (!temps.some((temp) => home === temp || home.startsWith(`${temp}${sep}`))) return null;
  return `CODEX_HOME is ${home}, under the temporary directory: Codex will not start its sandbox helpers there, and every command the agent runs in the box fails; move CODEX_HOME elsewhere (the default is ~/.codex)`;
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
