import { gunzipSync, gzipSync } from 'node:zlib';
import type { KeptLog } from '../runner/log-capture.js';

/** The format name in a stored log's header line. */
export const LOG_FORMAT = 'vouch-log/1';

/** One stream's part of a stored log, as its header describes it. */
export interface LogStreamHeader {
  /** Bytes of kept, redacted text in the file. */
  readonly bytes: number;
  /** Bytes the stream wrote in all. */
  readonly raw_bytes: number;
  /** Raw bytes dropped from the middle past the cap. */
  readonly dropped_bytes: number;
}

/**
 * A stored log: one gzip member holding a JSON header line, then the kept
 * stdout, then the kept stderr. The header names its receipt and check, so
 * every receipt's log is its own file (two receipts never share one, and gc
 * removing one receipt's log cannot take another's), and says where stdout
 * ends.
 */
export interface LogHeader {
  readonly format: typeof LOG_FORMAT;
  readonly receipt: string;
  readonly check: string;
  readonly stdout: LogStreamHeader;
  readonly stderr: LogStreamHeader;
}

export interface DecodedLog {
  readonly header: LogHeader;
  readonly stdout: Buffer;
  readonly stderr: Buffer;
}

export function encodeLog(receipt: string, check: string, stdout: KeptLog, stderr: KeptLog): Buffer {
  const part = (log: KeptLog): LogStreamHeader => ({ bytes: log.text.length, raw_bytes: log.rawBytes, dropped_bytes: log.droppedBytes });
  const header: LogHeader = { format: LOG_FORMAT, receipt, check, stdout: part(stdout), stderr: part(stderr) };
  return gzipSync(Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), stdout.text, stderr.text]));
}

/** The log in stored bytes, or undefined when they are not one (damaged, foreign). */
export function decodeLog(stored: Buffer): DecodedLog | undefined {
  let plain: Buffer;
  try {
    plain = gunzipSync(stored);
  } catch {
    return undefined;
  }
  const eol = plain.indexOf(0x0a);
  if (eol < 0) return undefined;
  let header: LogHeader;
  try {
    header = JSON.parse(plain.toString('utf8', 0, eol)) as LogHeader;
  } catch {
    return undefined;
  }
  if (header?.format !== LOG_FORMAT || !Number.isSafeInteger(header.stdout?.bytes) || !Number.isSafeInteger(header.stderr?.bytes)) return undefined;
  const body = plain.subarray(eol + 1);
  if (body.length !== header.stdout.bytes + header.stderr.bytes) return undefined;
  return { header, stdout: body.subarray(0, header.stdout.bytes), stderr: body.subarray(header.stdout.bytes) };
}
