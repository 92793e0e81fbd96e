import { readSync, realpathSync } from 'node:fs';
import { FdSink, isTerminal } from './fd-sink.js';
import { main } from './main.js';

/**
 * Runs this process's command line through main() and sets its exit code:
 * what both built entries do (src/entry/split.ts for every command,
 * src/entry/hot.ts for the commands an agent calls most). `hashWorker` is
 * the built hash worker script, found from the entry's own place.
 */
export async function runProcess(hashWorker: URL): Promise<void> {
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (stop.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 143);
    stop.abort(signal);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const code = await main(process.argv.slice(2), {
    // A getter: creating process.stdin loads the stream and socket machinery,
    // which only commands that read stdin should pay for.
    get stdin() {
      return process.stdin;
    },
    readInput,
    // Written directly: process.stdout and process.stderr are built only if a pipe fills (fd-sink.ts).
    stdout: new FdSink(1, () => process.stdout),
    stderr: new FdSink(2, () => process.stderr),
    env: process.env,
    cwd: process.cwd(),
    stderrIsTTY: isTerminal(2),
    stdoutIsTTY: isTerminal(1),
    signal: stop.signal,
    hashWorker,
    ...(process.argv[1] && { self: { node: process.execPath, entry: realpathSync.native(process.argv[1]) } }),
  });
  process.exitCode = stop.signal.aborted ? (stop.signal.reason === 'SIGINT' ? 130 : 143) : code;
}

/**
 * All of stdin with blocking reads to its end, as a hook's payload arrives:
 * no stream or socket machinery is loaded. A stdin its parent made
 * non-blocking answers EAGAIN while it waits for more; what is left is then
 * read as a stream, after what was already read.
 */
async function readInput(): Promise<string> {
  const chunks: Buffer[] = [];
  const buffer = Buffer.allocUnsafe(1 << 16);
  for (;;) {
    let read: number;
    try {
      read = readSync(0, buffer);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      break;
    }
    if (read === 0) break;
    chunks.push(Buffer.from(buffer.subarray(0, read)));
  }
  return Buffer.concat(chunks).toString('utf8');
}
