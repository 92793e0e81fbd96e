import type { StoredReceipt } from '../receipt/receipt.js';
import type { DecodedLog } from './log-file.js';
import { readLog } from './store.js';

/**
 * What a failing run's output says where it failed, across test runners
 * and languages: TAP, vitest/jest/pytest summaries, compiler and runtime
 * errors, Python tracebacks, Rust panics. Case matters (FAIL, not "0
 * failed"); `Error\b` also takes TypeError and AssertionError.
 */
// ✗ × ✖ written as escapes: the hot bundle is ASCII (scripts/build.mjs), and esbuild leaves regular expressions as written.
const MARKER = /\bnot ok\b|\bFAIL(ED)?\b|Error\b|\berror(\[\w+\]| TS\d+)?:|\u2717|\u00d7|\u2716|AssertionError|Traceback|panicked/;

/**
 * Lines that are source code quoted in the output, not where it failed:
 * a Python traceback's quoted line (the one after `File "...", line N`),
 * and statements that only name an error type (`except TypeError:`,
 * `raise ValueError(...)`, `throw new Error(...)`, `catch (error)`, a class
 * or function definition, an import).
 */
const SOURCE =
  /^\s*>?\s*(?:except\b|raise\b|throw\b|catch\b|} catch\b|class\s+\w+|def\s+\w+|(?:async\s+)?function\b|import\s|from\s+\S+\s+import\b|const\s+\w+\s*=\s*new\s+\w*Error\b|if\s*\(.*\)\s*throw\b)/;
const TRACEBACK_FILE = /^\s*File "[^"]*", line \d+/;

/** At most this many lines are picked; each is cut to LINE_WIDTH characters. */
export const FAILURE_LINES = 20;
export const LINE_WIDTH = 200;

export interface FailureLine {
  readonly stream: 'stdout' | 'stderr';
  /** 1-based line number in that stream's stored log. */
  readonly line: number;
  readonly text: string;
}

export interface FailureLines {
  readonly lines: readonly FailureLine[];
  /** Further matching lines not picked (past the bound). */
  readonly more: number;
}

/**
 * Lines of a stored log that look like where it failed, in order, bounded.
 * `shown` are lines the caller prints anyway (the tail): not repeated.
 */
export function failureLines(log: DecodedLog, shown: ReadonlySet<string> = new Set()): FailureLines {
  const lines: FailureLine[] = [];
  let more = 0;
  for (const stream of ['stdout', 'stderr'] as const) {
    const text = log[stream].toString('utf8').split('\n');
    let quotedNext = false;
    text.forEach((raw, index) => {
      const line = raw.replace(/\s+$/, '');
      const quoted = quotedNext;
      quotedNext = TRACEBACK_FILE.test(line);
      if (quoted || SOURCE.test(line) || !MARKER.test(line) || shown.has(line)) return;
      if (lines.length >= FAILURE_LINES) more++;
      else lines.push({ stream, line: index + 1, text: line.length > LINE_WIDTH ? `${line.slice(0, LINE_WIDTH - 1)}…` : line });
    });
  }
  return { lines, more };
}

/**
 * The failure lines of a receipt that did not pass, from its stored log;
 * undefined when it passed or has no readable log. `shown`: as above.
 */
export function receiptFailureLines(stateDir: string, receipt: StoredReceipt, shown: ReadonlySet<string>): FailureLines | undefined {
  if (receipt.body.verdict === 'PASS' || !receipt.intact) return undefined;
  const read = readLog(stateDir, receipt.body.log);
  return read.ok ? failureLines(read.log, shown) : undefined;
}
