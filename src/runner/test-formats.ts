/*
 * The summary lines of the common test runners, one reader each. A reader
 * sees every line of the output (ANSI colours and carriage returns gone)
 * and adds what its runner's summary says; it reports counts only when it
 * saw its runner's anchor line, so a stray "2 pending" elsewhere is no
 * summary. Each format is the runner's documented or observed summary:
 * test-summary.test.ts holds real output of each (pytest, unittest,
 * node:test, vitest, go test, cargo test run here) or its documented form
 * (jest, mocha, ava).
 */

/** Counts as one runner's summaries add them up. */
export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

/** One runner's reader: fed every line, asked once at the end. */
export interface SummaryReader {
  readonly runner: string;
  line(text: string): void;
  /** The counts read, or null when this runner's summary never appeared. */
  result(): Tally | null;
}

const number = (text: string | undefined): number => (text === undefined ? 0 : Number.parseInt(text, 10));

/** A reader that adds `key N` words of one line, such as "1 failed, 2 passed, 3 skipped". */
function addWords(tally: Tally, words: string, sort: (word: string) => keyof Tally | null): void {
  for (const match of words.matchAll(/(\d+) ([a-z][a-z ]*?)(?=,|\s\||$)/g)) {
    const key = sort(match[2]!.trim());
    if (key !== null) tally[key] += number(match[1]);
  }
}

function fresh(): Tally {
  return { passed: 0, failed: 0, skipped: 0 };
}

/** `===== 1 failed, 2 passed, 2 skipped, 2 xfailed in 0.10s =====`, `297 skipped in 0.5s`, `no tests ran in 0.01s`. */
function pytest(): SummaryReader {
  const tally = fresh();
  let seen = false;
  const counts = /^=*\s*((?:\d+ (?:passed|failed|skipped|errors?|warnings?|xfailed|xpassed|deselected|rerun)(?:, |(?= in )))+) in [\d.]+s(?: \([^)]*\))?\s*=*$/;
  const none = /^=*\s*no tests ran in [\d.]+s(?: \([^)]*\))?\s*=*$/;
  return {
    runner: 'pytest',
    line(text) {
      if (none.test(text)) {
        seen = true;
        return;
      }
      const match = counts.exec(text);
      if (!match) return;
      seen = true;
      addWords(tally, match[1]!, (word) => {
        if (word === 'passed' || word === 'xpassed') return 'passed';
        if (word === 'failed' || word === 'error' || word === 'errors') return 'failed';
        // An expected failure was not held to passing: a run of nothing but xfails proves nothing either.
        if (word === 'skipped' || word === 'xfailed') return 'skipped';
        return null;
      });
    },
    result: () => (seen ? tally : null),
  };
}

/** `Ran 3 tests in 0.001s`, then `OK (skipped=1, expected failures=1)` or `FAILED (failures=1, errors=1)`. */
function unittest(): SummaryReader {
  const tally = fresh();
  let seen = false;
  let pending: number | null = null;
  return {
    runner: 'unittest',
    line(text) {
      const ran = /^Ran (\d+) tests? in [\d.]+s$/.exec(text);
      if (ran) {
        pending = number(ran[1]);
        return;
      }
      if (pending === null) return;
      const status = /^(OK|FAILED|NO TESTS RAN)(?: \((.*)\))?$/.exec(text);
      if (!status) return;
      const details = new Map<string, number>();
      for (const part of (status[2] ?? '').split(', ')) {
        const [key, value] = part.split('=');
        if (key !== undefined && value !== undefined) details.set(key, number(value));
      }
      const failed = (details.get('failures') ?? 0) + (details.get('errors') ?? 0) + (details.get('unexpected successes') ?? 0);
      const skipped = (details.get('skipped') ?? 0) + (details.get('expected failures') ?? 0);
      tally.failed += failed;
      tally.skipped += skipped;
      tally.passed += Math.max(0, pending - failed - skipped);
      seen = true;
      pending = null;
    },
    result: () => (seen ? tally : null),
  };
}

/**
 * node:test's closing lines (`# tests 4` ... under TAP, `\u2139 tests 4` under
 * its spec reporter) and any TAP producer's `# pass N` / `# fail N`.
 */
function nodeTest(): SummaryReader {
  const tally = fresh();
  let seen = false;
  return {
    runner: 'node:test',
    line(text) {
      const match = /^(?:#|\u2139)\s+(tests|pass|fail|cancelled|skipped|todo)\s+(\d+)$/.exec(text);
      if (!match) return;
      const n = number(match[2]);
      switch (match[1]) {
        case 'tests':
          seen = true;
          return;
        case 'pass':
          tally.passed += n;
          return;
        case 'fail':
        case 'cancelled':
          tally.failed += n;
          return;
        default:
          tally.skipped += n;
      }
    },
    result: () => (seen ? tally : null),
  };
}

/** jest: `Tests:       1 failed, 1 skipped, 2 passed, 4 total`. */
function jest(): SummaryReader {
  const tally = fresh();
  let seen = false;
  return {
    runner: 'jest',
    line(text) {
      const match = /^Tests:\s+(.*), \d+ total$/.exec(text);
      if (!match) return;
      seen = true;
      addWords(tally, match[1]!, (word) =>
        word === 'passed' ? 'passed' : word === 'failed' ? 'failed' : word === 'skipped' || word === 'todo' || word === 'pending' ? 'skipped' : null,
      );
    },
    result: () => (seen ? tally : null),
  };
}

/** vitest: `      Tests  1 failed | 1 passed | 1 skipped | 1 todo (4)`. */
function vitest(): SummaryReader {
  const tally = fresh();
  let seen = false;
  return {
    runner: 'vitest',
    line(text) {
      const match = /^\s*Tests\s+((?:\d+ [a-z]+(?: \| )?)+)\s*\(\d+\)$/.exec(text);
      if (!match) return;
      seen = true;
      addWords(tally, match[1]!, (word) =>
        word === 'passed' ? 'passed' : word === 'failed' ? 'failed' : word === 'skipped' || word === 'todo' ? 'skipped' : null,
      );
    },
    result: () => (seen ? tally : null),
  };
}

/** mocha: `  3 passing (10ms)`, then `  1 pending`, `  2 failing`. */
function mocha(): SummaryReader {
  const tally = fresh();
  let seen = false;
  return {
    runner: 'mocha',
    line(text) {
      const passing = /^\s*(\d+) passing \(\S+\)$/.exec(text);
      if (passing) {
        seen = true;
        tally.passed += number(passing[1]);
        return;
      }
      if (!seen) return;
      const other = /^\s*(\d+) (pending|failing)$/.exec(text);
      if (other) tally[other[2] === 'pending' ? 'skipped' : 'failed'] += number(other[1]);
    },
    result: () => (seen ? tally : null),
  };
}

/** ava: `  2 tests passed`, `  1 test failed`, `  1 test skipped`, `  1 test todo`, `  1 known failure`. */
function ava(): SummaryReader {
  const tally = fresh();
  let seen = false;
  return {
    runner: 'ava',
    line(text) {
      const match = /^\s*(\d+) (?:tests? (passed|failed|skipped|todo)|(known failures?))$/.exec(text);
      if (!match) return;
      seen = true;
      const n = number(match[1]);
      if (match[2] === 'passed') tally.passed += n;
      else if (match[2] === 'failed') tally.failed += n;
      else tally.skipped += n;
    },
    result: () => (seen ? tally : null),
  };
}

/**
 * go test: only `-v` names each test (`--- PASS: TestX`, subtests too); a
 * plain `ok  pkg 0.01s` says no count, so a run of those alone is not read.
 * Packages that say `[no test files]` or `[no tests to run]` ran none.
 */
function goTest(): SummaryReader {
  const tally = fresh();
  let named = false;
  let empty = 0;
  let countless = 0;
  return {
    runner: 'go test',
    line(text) {
      const result = /^\s*--- (PASS|FAIL|SKIP): \S/.exec(text);
      if (result) {
        named = true;
        tally[result[1] === 'PASS' ? 'passed' : result[1] === 'FAIL' ? 'failed' : 'skipped'] += 1;
        return;
      }
      if (/^(?:ok\s+\S+\s+\S+ \[no tests to run\]|\?\s+\S+\s+\[no test files\])$/.test(text)) empty += 1;
      else if (/^(?:ok|FAIL)\s+\S+\s+(?:\(cached\)|[\d.]+s)/.test(text)) countless += 1;
    },
    result: () => (named ? tally : empty > 0 && countless === 0 ? tally : null),
  };
}

/** cargo test: `test result: ok. 1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; ...`, once per test binary. */
function cargoTest(): SummaryReader {
  const tally = fresh();
  let seen = false;
  return {
    runner: 'cargo test',
    line(text) {
      const match = /^test result: \S+\. (\d+) passed; (\d+) failed; (\d+) ignored;/.exec(text);
      if (!match) return;
      seen = true;
      tally.passed += number(match[1]);
      tally.failed += number(match[2]);
      tally.skipped += number(match[3]);
    },
    result: () => (seen ? tally : null),
  };
}

/** A fresh reader of every known runner. */
export function summaryReaders(): SummaryReader[] {
  return [pytest(), unittest(), nodeTest(), jest(), vitest(), mocha(), ava(), goTest(), cargoTest()];
}
