#!/usr/bin/env node
// The executable: wires the real process to main(). Everything testable lives in cli/main.ts.
import { realpathSync } from 'node:fs';
import { quietWhenReaderLeaves } from './cli/io.js';
import { main } from './cli/main.js';

const stop = new AbortController();
const onSignal = (signal: NodeJS.Signals) => {
  if (stop.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 143);
  stop.abort(signal);
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
quietWhenReaderLeaves(process.stdout);
quietWhenReaderLeaves(process.stderr);

const code = await main(process.argv.slice(2), {
  // A getter: creating process.stdin loads the stream and socket machinery,
  // which only commands that read stdin should pay for.
  get stdin() {
    return process.stdin;
  },
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  stderrIsTTY: process.stderr.isTTY === true,
  stdoutIsTTY: process.stdout.isTTY === true,
  signal: stop.signal,
  // Built beside this file by scripts/build.mjs.
  hashWorker: new URL('./hash-worker.js', import.meta.url),
  ...(process.argv[1] && { self: { node: process.execPath, entry: realpathSync(process.argv[1]) } }),
});
process.exitCode = stop.signal.aborted ? (stop.signal.reason === 'SIGINT' ? 130 : 143) : code;
