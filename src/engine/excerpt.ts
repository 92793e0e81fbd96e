import type { BoundedCapture } from '../runner/capture.js';
import { redact } from '../runner/redact.js';
import type { StreamRecord } from '../receipt/receipt.js';

/**
 * The stored record of one output stream: the hash and size of everything,
 * and the redacted end of it. Redaction runs over the whole kept window
 * before cutting, so a secret is not split into an unrecognisable half; the
 * cut then drops the partial first line.
 */
export function streamRecord(capture: BoundedCapture, excerptBytes: number): StreamRecord {
  const kept = capture.text();
  const text = redact(kept.complete ? kept.head + kept.tail : kept.tail);
  const bytes = Buffer.from(text, 'utf8');
  let excerpt = text;
  let cut = !kept.complete;
  if (bytes.length > excerptBytes) {
    excerpt = bytes.subarray(bytes.length - excerptBytes).toString('utf8');
    const newline = excerpt.indexOf('\n');
    excerpt = newline >= 0 && newline < excerpt.length - 1 ? excerpt.slice(newline + 1) : excerpt;
    // A multi-byte character cut in half decodes to U+FFFD: drop it.
    excerpt = excerpt.replace(/^\uFFFD+/, '');
    cut = true;
  }
  return { sha256: capture.digest(), bytes: capture.bytes, excerpt, truncated: cut };
}
