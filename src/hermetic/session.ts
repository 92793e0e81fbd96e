import { closeSync, existsSync, fstatSync, openSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { err, ok, type Result } from '../core/result.js';
import type { Reason } from '../core/status.js';
import type { SandboxRecord } from '../receipt/sandbox-record.js';
import type { RunOutcome } from '../runner/run.js';
import { BWRAP } from '../sandbox/system.js';
import type { ManifestFile } from '../scope/manifest.js';
import type { CheckDef } from '../spec/model.js';
import { hermeticArgs, INSIDE_HOME, INSIDE_PYCACHE, INSIDE_TMP, START_MARK } from './args.js';
import { copyBack } from './copy-back.js';
import { makePrivateCopy, type PrivateCopy } from './copy.js';
import { lstatPaths } from './identity.js';
import { privateBase } from './place.js';
import { removeTree } from './remove.js';
import { writableDirs } from './writable.js';

/** Why a hermetic run did not happen, or does not count: a reason code and one line. */
export interface HermeticProblem {
  readonly reason: Extract<
    Reason,
    'sandbox_unavailable' | 'changed_during_hash' | 'changed_during_run' | 'path_escape' | 'scope_unreadable' | 'artifact_missing'
  >;
  readonly detail: string;
}

/** What a check run needs to run hermetic, and what to do once it ran. */
export interface HermeticRun {
  /** Rewrites the command to run in the sandbox (RunRequest.wrap). */
  readonly wrap: (command: readonly string[], cwd: string) => readonly string[];
  /** The start marker's descriptor (RunRequest.passFds). */
  readonly passFds: readonly number[];
  /** Variables the check gets instead of the caller's: HOME, the temp dirs, Python's cache prefix. */
  readonly env: Readonly<Record<string, string>>;
  /** The copy's root on the host: where `file_exists` is judged (the file must be this run's). */
  readonly copyRoot: string;
  /** What the receipt records. */
  readonly record: SandboxRecord;
  /**
   * After the run: was the sandbox started, is the copy untouched, and are
   * the outputs back in the workspace? The first thing that did not hold,
   * or undefined.
   */
  finish(outcome: RunOutcome): HermeticProblem | undefined;
  /** Starts removing the copy (after `finish`); settles once it is gone. */
  dispose(): Promise<void>;
}

export interface HermeticRequest {
  /** The workspace root (canonical). */
  readonly root: string;
  /** The workspace's state directory: where the copy is made when it is not held in memory (place.ts). */
  readonly stateDir: string;
  readonly check: CheckDef;
  /** The check's cwd, absolute and canonical, inside the workspace. */
  readonly cwd: string;
  /** The files of the check's before-manifest: what the copy holds. */
  readonly files: readonly ManifestFile[];
}

/**
 * Prepares one hermetic run: bubblewrap must be there (never run
 * unconfined in its place), and the private copy is made from the bytes
 * the before-manifest recorded.
 */
export function startHermetic(request: HermeticRequest): Result<HermeticRun, HermeticProblem> {
  if (!existsSync(BWRAP)) return err(unavailable(`bubblewrap is not installed (${BWRAP} not found)`));
  const { root, check } = request;
  const dirs = writableDirs(check);
  const cwd = relative(root, request.cwd).split(sep).join('/');
  let base: string;
  try {
    base = privateBase(
      request.stateDir,
      request.files.reduce((sum, file) => sum + file[2], 0),
    );
  } catch (error) {
    return err({
      reason: 'scope_unreadable',
      detail: `the private copy could not be made under ${request.stateDir} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    });
  }
  const dispose = () => rmSync(base, { recursive: true, force: true });
  let removing: Promise<void> | undefined;
  let copy: PrivateCopy;
  try {
    const made = makePrivateCopy(root, request.files, join(base, 'root'), [...dirs, cwd]);
    if (!made.ok) {
      dispose();
      return err({ reason: made.error.reason, detail: `${made.error.path}: ${made.error.detail}` });
    }
    copy = made.value;
  } catch (error) {
    dispose();
    return err({ reason: 'scope_unreadable', detail: `the private copy could not be made (${(error as NodeJS.ErrnoException).code ?? String(error)})` });
  }
  // Written by the sandbox's first command once every mount is in place: an empty marker means bubblewrap never got that far.
  const markerPath = join(base, 'started');
  const marker = openSync(markerPath, 'w', 0o600);
  let closed = false;
  const closeMarker = () => {
    if (!closed) closeSync(marker);
    closed = true;
  };
  const env: Record<string, string> = { HOME: INSIDE_HOME, TMPDIR: INSIDE_TMP, TMP: INSIDE_TMP, TEMP: INSIDE_TMP };
  // Python's compiled modules go to the private /tmp (never a __pycache__ of the copy), unless the person named their own.
  if (!check.env.includes('PYTHONPYCACHEPREFIX')) env.PYTHONPYCACHEPREFIX = INSIDE_PYCACHE;
  const inputs = new Set(request.files.map((file) => file[0]));
  return ok({
    wrap: (command) => hermeticArgs({ copyRoot: copy.root, root, writable: dirs, network: check.network, cwd: cwd === '' ? root : join(root, cwd), command }),
    passFds: [marker],
    env,
    copyRoot: copy.root,
    record: {
      kind: 'bubblewrap',
      network: check.network,
      writable: 'artifact folders',
      view: { files: copy.files, bytes: copy.bytes, writable: dirs, home: 'empty' },
    },
    finish(outcome) {
      const started = fstatSync(marker).size >= START_MARK.length;
      closeMarker();
      if (outcome.kind === 'spawn_error') return unavailable(`${BWRAP} could not be started (${outcome.code})`);
      if (!started && !outcome.interrupted && !outcome.timedOut) {
        const said = outcome.stderr.text().head.trim().split('\n')[0] ?? '';
        return unavailable(`bubblewrap did not start the sandbox${said ? `: ${JSON.stringify(said.slice(0, 200))}` : ''}`);
      }
      const touched = changedEntries(copy);
      if (touched.length > 0) {
        return {
          reason: 'changed_during_run',
          detail: `the private copy's ${touched
            .slice(0, 3)
            .map((p) => (p === '' ? 'root folder' : p))
            .join(
              ', ',
            )}${touched.length > 3 ? ` (+${touched.length - 3} more)` : ''} changed while the check ran: by the check (outside its artifacts' folders) or by a process outside the sandbox`,
        };
      }
      const back = copyBack(copy.root, root, check, inputs, dirs);
      if (back.refused) return { reason: 'path_escape', detail: `${back.refused.path}: ${back.refused.detail}` };
      if (back.missing.length > 0) {
        return {
          reason: 'artifact_missing',
          detail: `declared artifact "${back.missing[0]}" was not made by this hermetic run${back.missing.length > 1 ? ` (+${back.missing.length - 1} more)` : ''}`,
        };
      }
      return undefined;
    },
    dispose() {
      closeMarker();
      return (removing ??= removeTree(base));
    },
  });
}

/** Entries of the copy whose identity moved since it was made (or that are gone). */
function changedEntries(copy: PrivateCopy): string[] {
  const paths = [...copy.identities.keys()];
  const now = lstatPaths(copy.root, paths);
  return paths.filter((path, i) => now[i] !== copy.identities.get(path));
}

function unavailable(what: string): HermeticProblem {
  return {
    reason: 'sandbox_unavailable',
    detail: `${what}: a hermetic check never runs unconfined. Install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap) where user namespaces are allowed, or set hermetic: false on the check (then vouch allow)`,
  };
}
