import { createHash } from 'node:crypto';
import { closeSync, fstatSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { childProcess } from '../core/builtins.js';
import type { Sha256 } from '../core/digest.js';
import { START_MARK } from '../hermetic/args.js';

/** One stream of the command: passed through to the caller as it comes, and digested. */
export interface StreamDigest {
  readonly sha256: Sha256;
  readonly bytes: number;
}

export type ExecOutcome =
  | {
      readonly kind: 'ran';
      /** The command's exit code; 128+N for a signal, 124 when the timeout killed it. */
      readonly exitCode: number;
      readonly timedOut: boolean;
      readonly durationMs: number;
      readonly stdout: StreamDigest;
      readonly stderr: StreamDigest;
    }
  /** bubblewrap could not be started, or did not get as far as starting the command. */
  | { readonly kind: 'sandbox_failed'; readonly detail: string };

/** Where the command's output goes on: the caller's stream. */
export interface OutputSink {
  write(chunk: Uint8Array): unknown;
}

export interface ExecRunRequest {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  readonly stdout: OutputSink;
  readonly stderr: OutputSink;
}

/** Exit code of a command the timeout killed, as timeout(1) says it. */
export const TIMED_OUT_EXIT = 124;

/**
 * Runs the sandbox's command line in its own process group (one signal
 * reaches everything it started), with the caller's stdin, its output
 * passed through to the caller while it is hashed. On timeout the whole
 * group is killed.
 */
export function runSandboxed(request: ExecRunRequest): Promise<ExecOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'vouch-exec-'));
  const marker = openSync(join(dir, 'started'), 'w+', 0o600);
  const started = performance.now();
  const cleanup = () => {
    closeSync(marker);
    rmSync(dir, { recursive: true, force: true });
  };
  return new Promise((resolve) => {
    const [file, ...args] = request.argv;
    const child = childProcess().spawn(file!, args, { cwd: request.cwd, env: request.env, detached: true, stdio: ['inherit', 'pipe', 'pipe', marker] });
    const out = digestInto(child.stdout!, request.stdout);
    const err = digestInto(child.stderr!, request.stderr);
    let timedOut = false;
    const kill = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // The group is gone already.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill('SIGTERM');
      setTimeout(() => kill('SIGKILL'), 2000).unref();
    }, request.timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      cleanup();
      resolve({ kind: 'sandbox_failed', detail: `${file} could not be started (${error.code ?? error.message})` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ranCommand = fstatSync(marker).size >= START_MARK.length;
      cleanup();
      if (!ranCommand && !timedOut) {
        resolve({ kind: 'sandbox_failed', detail: `bubblewrap did not start the command (exit ${code ?? signal ?? '?'})` });
        return;
      }
      const exitCode = timedOut ? TIMED_OUT_EXIT : (code ?? 128 + signalNumber(signal));
      resolve({ kind: 'ran', exitCode, timedOut, durationMs: Math.round(performance.now() - started), stdout: out(), stderr: err() });
    });
  });
}

function digestInto(from: NodeJS.ReadableStream, to: OutputSink): () => StreamDigest {
  const hash = createHash('sha256');
  let bytes = 0;
  from.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    bytes += chunk.length;
    to.write(chunk);
  });
  let done: StreamDigest | undefined;
  return () => (done ??= { sha256: hash.digest('hex') as Sha256, bytes });
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === null ? 0 : constants.signals[signal];
}
