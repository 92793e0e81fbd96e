import { childProcess } from '../core/builtins.js';
import { BoundedCapture } from './capture.js';
import { LogCapture } from './log-capture.js';
import { spawnErrorMessage } from './spawn-error.js';
import { TestSummary } from './test-summary.js';
import type { TestCounts } from '../core/test-counts.js';

export interface RunRequest {
  readonly argv: readonly string[];
  readonly shell: boolean;
  /** Absolute directory. */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  /** Bytes kept from the start and from the end of each stream. */
  readonly captureWindow: number;
  /** Also keep each stream's whole output, redacted and bounded (LogCapture), for the stored log. */
  readonly keepLog?: boolean;
  /** Aborting kills the process group; the outcome says `interrupted`. */
  readonly signal?: AbortSignal;
  /** Grace between SIGTERM and SIGKILL when the group is stopped. */
  readonly killGraceMs?: number;
  /** Rewrites the command before it starts, e.g. to run it inside a sandbox (the verifier service's bubblewrap). */
  readonly wrap?: (command: readonly string[], cwd: string) => readonly string[];
  /** Descriptors of this process the command receives as 3, 4, ... (a hermetic sandbox's start marker). */
  readonly passFds?: readonly number[];
}

export type RunOutcome =
  | {
      readonly kind: 'exited';
      /** null when a signal ended the process. */
      readonly exitCode: number | null;
      readonly signal: NodeJS.Signals | null;
      readonly timedOut: boolean;
      readonly interrupted: boolean;
      readonly pid: number;
      readonly startedAt: Date;
      readonly durationMs: number;
      readonly stdout: BoundedCapture;
      readonly stderr: BoundedCapture;
      /** Present when the request asked to keep the log. */
      readonly logs?: { readonly stdout: LogCapture; readonly stderr: LogCapture };
      /** What a test runner's summary in the whole output said (test-summary.ts); null when none was recognised. */
      readonly tests: TestCounts | null;
    }
  | {
      readonly kind: 'spawn_error';
      readonly code: string;
      /** What was looked for where, and what to do (spawn-error.ts). */
      readonly message: string;
      readonly startedAt: Date;
      readonly durationMs: number;
    };

/**
 * Runs one command in its own process group. The group matters: a test
 * runner forks workers, a shell forks the command, and killing only the
 * direct child would leave grandchildren running (and holding our pipes open)
 * after a timeout. With a group, one signal reaches all of them.
 */
export function runCommand(request: RunRequest): Promise<RunOutcome> {
  const startedAt = new Date();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const command = request.shell ? ['/bin/sh', '-c', request.argv[0] ?? ''] : request.argv;
  const [file, ...args] = request.wrap ? request.wrap(command, request.cwd) : command;
  const grace = request.killGraceMs ?? 2000;

  return new Promise((resolve) => {
    const child = childProcess().spawn(file!, args, {
      cwd: request.cwd,
      env: request.env,
      // detached: the child calls setsid(), leading a new process group (and session).
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...(request.passFds ?? [])],
      windowsHide: true,
    });
    // Piped above, so present.
    const childOut = child.stdout!;
    const childErr = child.stderr!;
    const stdout = new BoundedCapture(request.captureWindow);
    const stderr = new BoundedCapture(request.captureWindow);
    const logs = request.keepLog ? { stdout: new LogCapture(), stderr: new LogCapture() } : undefined;
    const summary = new TestSummary();
    const summaryOut = summary.stream();
    const summaryErr = summary.stream();
    let timedOut = false;
    let interrupted = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the whole group is already gone.
      }
    };
    const stopGroup = () => {
      killGroup('SIGTERM');
      timers.push(setTimeout(() => killGroup('SIGKILL'), grace).unref());
    };
    const finish = () => {
      if (settled || exit === undefined) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      resolve({
        kind: 'exited',
        exitCode: exit.code,
        signal: exit.signal,
        timedOut,
        interrupted,
        pid: child.pid ?? -1,
        startedAt,
        durationMs: elapsed(),
        stdout,
        stderr,
        ...(logs && { logs }),
        tests: summary.counts(),
      });
    };
    const onAbort = () => {
      interrupted = true;
      stopGroup();
    };

    childOut.on('data', (chunk: Buffer) => {
      stdout.write(chunk);
      logs?.stdout.write(chunk);
      summaryOut(chunk);
    });
    childErr.on('data', (chunk: Buffer) => {
      stderr.write(chunk);
      logs?.stderr.write(chunk);
      summaryErr(chunk);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      for (const timer of timers) clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      resolve({
        kind: 'spawn_error',
        code: error.code ?? 'EUNKNOWN',
        message: spawnErrorMessage(error, file!, request.cwd, request.env.PATH),
        startedAt,
        durationMs: elapsed(),
      });
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      // The leader is gone; whatever it left behind in its group goes too, so
      // no straggler keeps running unobserved or holds the pipes open.
      killGroup('SIGKILL');
      // A descendant that left the group (setsid) may still hold a pipe: stop waiting after a bound.
      timers.push(
        setTimeout(() => {
          childOut.destroy();
          childErr.destroy();
          finish();
        }, grace).unref(),
      );
    });
    child.on('close', finish);

    timers.push(
      setTimeout(() => {
        timedOut = true;
        stopGroup();
      }, request.timeoutMs),
    );
    if (request.signal?.aborted) onAbort();
    else request.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
