import { childProcess } from './builtins.js';
import { findRepository, isolatedGit, type IsolatedGit } from './git-command.js';
import { noteEarlyGit } from './start.js';

/*
 * `git status` started by the launcher, before the hot bundle is compiled.
 * Every receipt of a `vouch verify` records HEAD and whether a tracked file
 * changed, and git learns both by reading the index and stating every
 * tracked file: on a tree of 30,000 files that is most of what verify
 * waits for. Started when the process starts, it runs while Node compiles
 * vouch, reads the spec and checks its trust, instead of after them.
 *
 * It runs before the spec is known to be allowed, and that is safe: the
 * git is isolated (git-command.ts: none of the repository's configuration,
 * so no program the repository names runs) and reads only
 * (GIT_OPTIONAL_LOCKS=0: it never writes the index). When the spec is not
 * allowed, or the command asks git nothing, its answer is dropped and its
 * directory removed when the process exits.
 */

/** The status a receipt's git state comes from: HEAD, the branch, and every tracked change; untracked files are not looked for. */
export const TRACKED_STATUS: readonly string[] = ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=no', '--ignore-submodules=all'];

/**
 * One isolated git command; its stdout, or undefined when it fails (or
 * takes more than 10 s: a receipt then records that git could not tell).
 */
export function runGit(isolated: IsolatedGit, cwd: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    childProcess().execFile('git', isolated.args(args), { cwd, timeout: 10_000, maxBuffer: 64 << 20, env: isolated.env }, (error, stdout) =>
      resolve(error ? undefined : stdout),
    );
  });
}

/** A TRACKED_STATUS on its way, with the isolated git it runs in (whoever takes it closes that). */
export interface EarlyStatus {
  readonly isolated: IsolatedGit;
  readonly status: Promise<string | undefined>;
}

/**
 * Starts TRACKED_STATUS for the repository `dir` is in; null outside one.
 * The caller hands it on (receiveEarlyStatus) or closes its isolated git.
 */
export function startEarlyStatus(dir: string, env: NodeJS.ProcessEnv): EarlyStatus | null {
  const isolated = isolatedGit(dir, env);
  return isolated && { isolated, status: runGit(isolated, dir, TRACKED_STATUS) };
}

let handed: EarlyStatus | null = null;

/**
 * Given by the launcher to the hot bundle (a bundle of its own, with its own
 * copy of this module): the status it started, for takeEarlyStatus. Not
 * taken by the time the process exits, its isolated git is removed then.
 */
export function receiveEarlyStatus(early: EarlyStatus | null | undefined): void {
  if (!early) return;
  handed = early;
  noteEarlyGit('started');
  process.once('exit', () => {
    if (handed === early) early.isolated.close();
  });
}

/**
 * The early status, once, when it was started for the repository `dir` is
 * in (the same git dir and work tree); null otherwise. The caller closes
 * its isolated git.
 */
export function takeEarlyStatus(dir: string): EarlyStatus | null {
  const early = handed;
  if (early === null) return null;
  const repository = findRepository(dir);
  const { gitDir, top } = early.isolated.repository;
  if (repository === null || gitDir !== repository.gitDir || top !== repository.top) return null;
  handed = null;
  noteEarlyGit('taken');
  return early;
}
