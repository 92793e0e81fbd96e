import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { childProcess } from '../core/builtins.js';
import { sha256 } from '../core/digest.js';
import { GATE_RUN_EVENT } from './gate-run-event.js';

/**
 * Background runs: a check the gate's budget would cut short keeps running
 * in a runner process of vouch's own (detached, its own process group, out
 * of the client's hook and of the agent's reach), started by the gate,
 * recording its receipt stamped with the stop that started it. A later stop
 * waits for it (within its budget) and judges its receipt like any other.
 *
 * The markers under VOUCH_HOME/gate-runs say which checks such a runner is
 * still running. They decide only whether a stop waits or starts a run:
 * never a verdict (that is the receipt's, judged by the stamp and pins
 * rules). A forged marker can only make the gate wait for nothing until the
 * marker's deadline passes.
 */

/** What the gate hands a background runner (as JSON on its stdin). */
export interface BackgroundOrder {
  readonly v: 1;
  readonly root: string;
  /** The spec the gate graded under: the runner refuses to run under other bytes. */
  readonly spec_sha256: string;
  /** The stamp its receipts carry: the stop that started it. */
  readonly client: string;
  readonly session: string;
  readonly event: string;
  readonly checks: readonly string[];
}

/** One check a background runner has in hand. */
export interface BackgroundMarker {
  readonly v: 1;
  readonly check: string;
  readonly pid: number;
  readonly session: string;
  readonly started_at: string;
  /** After this the marker is ignored, live or not: the check's own timeout has long stopped it. */
  readonly deadline: string;
}

/** How the gate starts a runner: the argv that names vouch (node + entry script). */
export interface BackgroundLauncher {
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
}

/** Grace over a check's own timeout before its marker no longer counts (hashing, the ledger append). */
const DEADLINE_GRACE_MS = 60_000;

function runsDir(home: string, root: string): string {
  return join(home, 'gate-runs', sha256(root).slice(0, 32));
}

function markerPath(home: string, root: string, check: string): string {
  return join(runsDir(home, root), `${sha256(check).slice(0, 32)}.json`);
}

/** The runner's stderr, kept for a person (one file per workspace, the latest run's). */
export function runnerLogPath(home: string, root: string): string {
  return join(runsDir(home, root), 'runner.log');
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user has the pid; it is not our runner, but it is alive.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The marker of a check a runner is still running, or null (none, its runner gone, or past its deadline). */
export function liveMarker(home: string, root: string, check: string, now = Date.now()): BackgroundMarker | null {
  let marker: BackgroundMarker;
  try {
    marker = JSON.parse(readFileSync(markerPath(home, root, check), 'utf8')) as BackgroundMarker;
  } catch {
    return null;
  }
  if (marker.check !== check || typeof marker.pid !== 'number') return null;
  if (!(Date.parse(marker.deadline) > now)) return null;
  return alive(marker.pid) ? marker : null;
}

/** Removes a check's marker when it is this runner's (a later runner's marker is left alone). */
export function clearMarker(home: string, root: string, check: string, pid: number): void {
  const path = markerPath(home, root, check);
  try {
    const marker = JSON.parse(readFileSync(path, 'utf8')) as BackgroundMarker;
    if (marker.pid === pid) rmSync(path, { force: true });
  } catch {
    // Gone already, or unreadable: nothing of ours to remove.
  }
}

/**
 * Starts a runner for these checks and marks each as in its hands before
 * returning, so a stop that follows at once waits for it. `timeouts` are
 * the checks' own timeouts in seconds (the markers' deadlines).
 */
export function launchBackground(
  launcher: BackgroundLauncher,
  home: string,
  order: BackgroundOrder,
  timeouts: ReadonlyMap<string, number>,
  now = new Date(),
): number {
  const dir = runsDir(home, order.root);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const log = openSync(runnerLogPath(home, order.root), 'a', 0o600);
  const [command, ...prefix] = launcher.argv;
  let pid: number | undefined;
  try {
    // detached: a process group (and session) of its own, so the client killing the hook's group on its timeout does not reach it.
    const child = childProcess().spawn(command ?? 'vouch', [...prefix, 'hook', order.client === 'codex' ? 'codex' : 'claude-code', GATE_RUN_EVENT], {
      detached: true,
      stdio: ['pipe', log, log],
      env: launcher.env,
      cwd: order.root,
    });
    child.on('error', () => undefined);
    child.stdin?.end(JSON.stringify(order));
    child.unref();
    pid = child.pid;
  } finally {
    closeSync(log);
  }
  if (pid === undefined) return -1;
  for (const check of order.checks) {
    const timeout = timeouts.get(check) ?? 3600;
    const marker: BackgroundMarker = {
      v: 1,
      check,
      pid,
      session: order.session,
      started_at: now.toISOString(),
      deadline: new Date(now.getTime() + timeout * 1000 + DEADLINE_GRACE_MS).toISOString(),
    };
    const path = markerPath(home, order.root, check);
    const temp = `${path}.${pid}.tmp`;
    writeFileSync(temp, JSON.stringify(marker), { mode: 0o600 });
    renameSync(temp, path);
  }
  return pid;
}

/**
 * Waits until no runner holds any of these checks, the deadline (ms since
 * the epoch) passes or the signal aborts. Polls the markers: a runner that
 * started in an earlier stop is not this process's child.
 */
export async function waitForRuns(home: string, root: string, checks: readonly string[], deadline: number, signal?: AbortSignal): Promise<void> {
  for (;;) {
    const now = Date.now();
    if (!checks.some((check) => liveMarker(home, root, check, now) !== null)) return;
    if (now >= deadline || signal?.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, deadline - now)));
  }
}
