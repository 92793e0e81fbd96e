import type { TestCounts } from '../core/test-counts.js';
import { summaryReaders, type SummaryReader } from './test-formats.js';

/** A summary line is short; a longer line is never read (nor kept while it grows). */
const LONGEST_LINE = 4096;
const NEWLINE = 0x0a;
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/**
 * Reads the test runners' summaries out of a run's whole output, line by
 * line as it streams (not from the kept head and tail: a cargo workspace
 * prints one summary per test binary, go test one line per test). Memory
 * stays bounded: counters and one line of each stream.
 */
export class TestSummary {
  private readonly readers: SummaryReader[] = summaryReaders();
  /** Each stream's last line, read when the counts are asked for: output need not end with a newline. */
  private readonly unfinished: (() => void)[] = [];

  /** A feeder for one stream: each stream keeps its own partial line, so two streams never splice. */
  stream(): (chunk: Buffer) => void {
    let carry: Buffer[] = [];
    let length = 0;
    let overlong = false;
    this.unfinished.push(() => {
      if (!overlong && length > 0) this.line(Buffer.concat(carry).toString('utf8'));
      carry = [];
      length = 0;
    });
    return (chunk) => {
      let start = 0;
      for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, start)) {
        if (!overlong && length + at - start <= LONGEST_LINE) this.line(Buffer.concat([...carry, chunk.subarray(start, at)]).toString('utf8'));
        carry = [];
        length = 0;
        overlong = false;
        start = at + 1;
      }
      if (start < chunk.length && !overlong) {
        length += chunk.length - start;
        if (length > LONGEST_LINE) {
          overlong = true;
          carry = [];
        } else carry.push(chunk.subarray(start));
      }
    };
  }

  private line(raw: string): void {
    // A progress bar redraws with \r: the last drawing is what the terminal showed.
    const text = raw
      .slice(raw.lastIndexOf('\r', raw.length - 2) + 1)
      .replace(ANSI, '')
      .replace(/\r$/, '');
    if (text === '') return;
    for (const reader of this.readers) reader.line(text);
  }

  /** What the summaries said, all runners seen added up; null when none was recognised. */
  counts(): TestCounts | null {
    for (const finish of this.unfinished.splice(0)) finish();
    const seen = this.readers.flatMap((reader) => {
      const tally = reader.result();
      return tally ? [{ runner: reader.runner, tally }] : [];
    });
    if (seen.length === 0) return null;
    const sum = (key: 'passed' | 'failed' | 'skipped') => seen.reduce((total, s) => total + s.tally[key], 0);
    const passed = sum('passed');
    const failed = sum('failed');
    return { runner: seen.map((s) => s.runner).join('+'), ran: passed + failed, passed, failed, skipped: sum('skipped') };
  }
}
