// Runs commands alternately and summarises their wall-clock times.
import { spawnSync } from 'node:child_process';

/** Runs `argv` once; returns milliseconds. Throws when it fails, so a broken run is never timed. */
export function timeOnce(argv, options = {}) {
  const start = process.hrtime.bigint();
  // `input`: written to the command's stdin (a hook's payload).
  const result = spawnSync(argv[0], argv.slice(1), { stdio: [options.input === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'], ...options });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const okCodes = options.okCodes ?? [0];
  if (result.error || !okCodes.includes(result.status)) {
    throw new Error(`benchmark command failed (${result.error?.message ?? `exit ${result.status}`}): ${argv.join(' ')}\n${result.stderr}`);
  }
  return ms;
}

export function summary(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median: round(median), min: round(sorted[0]), max: round(sorted[sorted.length - 1]), runs: samples.length, samples: samples.map(round) };
}

/**
 * Alternates the named commands `runs` times (A B C A B C ...), so machine
 * noise falls on all of them alike. `before` runs untimed before each timed
 * run of a command (to reset state, e.g. delete a cache).
 */
export function alternate(runs, commands) {
  const samples = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let i = 0; i < runs; i++) {
    for (const [name, command] of Object.entries(commands)) {
      command.before?.();
      samples[name].push(timeOnce(command.argv, command.options));
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, summary(values)]));
}

const round = (n) => Math.round(n * 10) / 10;
