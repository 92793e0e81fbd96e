import { REDACTED, redact } from './redact.js';

/** Raw bytes of one stream a stored log keeps at most: the first half and the last half; the middle is dropped and counted. */
export const LOG_CAP = 16 * 1024 * 1024;

/**
 * A line longer than this is cut and redacted in pieces. A secret can only
 * be split by such a cut, never by how the pipe happened to chunk the output.
 */
const LONG_LINE = 1024 * 1024;

const NEWLINE = 0x0a;
const KEY_BEGIN = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
const KEY_END = /-----END [A-Z0-9 ]*PRIVATE KEY-----/;
const KEY_WORDS = 'PRIVATE KEY-----';

/** What a stream's stored log holds. */
export interface KeptLog {
  /** The redacted text kept: head, a marker line where bytes were dropped, tail. */
  readonly text: Buffer;
  /** Bytes the stream wrote in all. */
  readonly rawBytes: number;
  /** Raw bytes dropped from the middle (0 when the stream fit under the cap). */
  readonly droppedBytes: number;
}

/**
 * The whole output of one stream, redacted, within a bound. Redaction runs
 * line by line over complete lines, so a secret the child wrote in two
 * chunks is seen whole; a private key block, which spans lines, is followed
 * from its BEGIN line to its END line and kept as one [REDACTED].
 *
 * Past LOG_CAP raw bytes the middle goes: the first LOG_CAP/2 bytes (whole
 * lines) stay, the tail is a window of the last LOG_CAP/2 bytes of lines,
 * and a marker line says how many bytes were dropped between them.
 */
export class LogCapture {
  private carry: Buffer[] = [];
  private carryLength = 0;
  /** Whether the next line redacted is inside a private key block. */
  private inKey = false;
  private readonly head: Buffer[] = [];
  private headRaw = 0;
  /**
   * The tail window, raw: redacting every line that passes through it would
   * make garbage in proportion to all the output (200 MB printed, 200 MB of
   * strings); only the lines still here at the end are redacted. Lines
   * before `tailStart` are gone (shifting an array per line is quadratic).
   */
  private tail: Buffer[][] = [];
  private tailLengths: number[] = [];
  private tailStart = 0;
  private tailRaw = 0;
  private dropped = 0;
  private total = 0;

  constructor(private readonly cap: number = LOG_CAP) {}

  write(chunk: Buffer): void {
    this.total += chunk.length;
    let start = 0;
    for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, start)) {
      this.carry.push(chunk.subarray(start, at + 1));
      this.carryLength += at + 1 - start;
      this.endLine();
      start = at + 1;
    }
    if (start < chunk.length) {
      this.carry.push(chunk.subarray(start));
      this.carryLength += chunk.length - start;
      if (this.carryLength >= LONG_LINE) this.endLine();
    }
  }

  /** The log as kept; call once, after the stream ended. */
  finish(): KeptLog {
    if (this.carryLength > 0) this.endLine();
    const marker =
      this.dropped > 0
        ? [Buffer.from(`\n[vouch: ${this.dropped} bytes of output dropped here; the log keeps the first and the last ${this.cap / 2} bytes]\n`)]
        : [];
    const tail = this.tail.slice(this.tailStart).map((pieces) => this.redactLine(pieces));
    return { text: Buffer.concat([...this.head, ...marker, ...tail]), rawBytes: this.total, droppedBytes: this.dropped };
  }

  private endLine(): void {
    const pieces = this.carry;
    const length = this.carryLength;
    this.carry = [];
    this.carryLength = 0;
    const half = this.cap / 2;
    if (this.headRaw < half) {
      this.head.push(this.redactLine(pieces));
      this.headRaw += length;
      return;
    }
    this.tail.push(pieces);
    this.tailLengths.push(length);
    this.tailRaw += length;
    while (this.tailRaw > half && this.tail.length - this.tailStart > 1) {
      const gone = this.tail[this.tailStart]!;
      this.tailRaw -= this.tailLengths[this.tailStart]!;
      this.dropped += this.tailLengths[this.tailStart]!;
      // Let go of the line's bytes now, not at the next compaction.
      this.tail[this.tailStart++] = [];
      // A dropped line still moves the private-key state the kept ones start from; only one that names a key is read.
      if (gone.some((piece) => piece.includes(KEY_WORDS))) this.redactLine(gone);
    }
    if (this.tailStart > 4096 && this.tailStart > this.tail.length / 2) {
      this.tail = this.tail.slice(this.tailStart);
      this.tailLengths = this.tailLengths.slice(this.tailStart);
      this.tailStart = 0;
    }
  }

  /** One line through redact(), with the state a private key block needs across lines. */
  private redactLine(pieces: readonly Buffer[]): Buffer {
    return Buffer.from(this.redactText(Buffer.concat(pieces).toString('utf8')), 'utf8');
  }

  private redactText(line: string): string {
    const eol = line.endsWith('\n') ? '\n' : '';
    if (this.inKey) {
      const end = KEY_END.exec(line);
      if (!end) return '';
      this.inKey = false;
      const rest = line.slice(end.index + end[0].length);
      return rest === eol ? '' : redact(rest);
    }
    const begin = KEY_BEGIN.exec(line);
    if (begin && !KEY_END.test(line)) {
      this.inKey = true;
      return `${redact(line.slice(0, begin.index))}${REDACTED}${eol}`;
    }
    return redact(line);
  }
}
