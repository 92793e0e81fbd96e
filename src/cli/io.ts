import type { Readable, Writable } from 'node:stream';
import type { Sink } from '../render/sink.js';
import { toTerminal } from '../render/terminal.js';
import type { VouchExecutable } from '../install/executable.js';
import type { Session } from '../session/session.js';

/** The world a command sees. Passed in, never taken from globals, so tests drive it. */
export interface CliIo {
  readonly stdin: Readable;
  readonly stdout: Sink;
  readonly stderr: Sink;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly stderrIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  /** Aborted when the process is asked to stop (SIGINT, SIGTERM): running checks are stopped and recorded. */
  readonly signal?: AbortSignal;
  /** The built hash worker script, next to the executable; absent, files are hashed on the main thread only. */
  readonly hashWorker?: URL;
  /** How this vouch was started, for configuration entries that must work without PATH. */
  readonly self?: VouchExecutable;
  /** All of stdin, read without building a stream where the process can (a hook's payload); absent, `stdin` is read. */
  readonly readInput?: () => Promise<string>;
}

/** Global options, parsed before the command name (and accepted after it too). */
export interface Cli {
  /** The world, with stdout and stderr as the terminal: every write is made safe for people (see terminalIo). */
  readonly io: CliIo;
  /**
   * The real stdout, for bytes that must arrive exact: a --json document, a
   * hook's reply to its client, the MCP protocol, an exported bundle. Never
   * for text a person reads (that is `io.stdout`).
   */
  readonly data: Sink;
  /** `-C DIR`: use this directory instead of searching up from cwd. */
  readonly dir: string | undefined;
  readonly color: boolean;
  /** This invocation: its workspace, spec and ledgers, each read or opened once (see src/session). */
  readonly session: Session;
}

export function out(cli: Cli, text: string): void {
  cli.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function err(cli: Cli, text: string): void {
  cli.io.stderr.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function json(cli: Cli, value: unknown): void {
  cli.data.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** All of the world's stdin: through `readInput` when the world has one, else from the stream. */
export function readInput(io: CliIo): Promise<string> {
  return io.readInput ? io.readInput() : readText(io.stdin);
}

/** All of a text stream (stdin for a hook's payload, `-` for a file argument). */
export function readText(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => resolve(text));
    stream.on('error', reject);
  });
}

/**
 * A sink for people in front of a real one: every write goes through
 * toTerminal() (control characters escaped, vouch's own colour tokens made
 * colour), synchronously and in order. Once the real one is gone (its
 * reader closed the pipe), writes are dropped: no one is left to read them.
 */
export class TerminalSink implements Sink {
  constructor(private readonly target: Sink) {}

  write(chunk: string | Uint8Array): boolean {
    if (!this.target.destroyed) this.target.write(toTerminal(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')));
    return true;
  }
}

/**
 * The same world with stdout and stderr behind the write boundary, so a
 * command cannot print untrusted text raw by forgetting a call: what must
 * stay exact goes through `Cli.data` on purpose.
 */
export function terminalIo(io: CliIo): CliIo {
  const stdout = new TerminalSink(io.stdout);
  const stderr = new TerminalSink(io.stderr);
  return {
    // A getter, as bin.ts gives it: reading stdin is paid for only by commands that read it.
    get stdin() {
      return io.stdin;
    },
    stdout,
    stderr,
    env: io.env,
    get cwd() {
      return io.cwd;
    },
    stderrIsTTY: io.stderrIsTTY,
    stdoutIsTTY: io.stdoutIsTTY,
    ...(io.signal && { signal: io.signal }),
    ...(io.hashWorker && { hashWorker: io.hashWorker }),
    ...(io.self && { self: io.self }),
    ...(io.readInput && { readInput: io.readInput }),
  };
}

/**
 * A reader that goes away (`vouch status | head -1`) closes the pipe: the next
 * write fails with EPIPE. That is not vouch's failure: vouch says nothing of
 * it, as git does, but unlike git it does not stop there; the run goes on to
 * its end, every receipt recorded. Other write errors still surface.
 */
export function quietWhenReaderLeaves(stream: Writable): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}
