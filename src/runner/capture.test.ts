import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BoundedCapture } from './capture.js';

function feed(capture: BoundedCapture, data: Buffer, chunkSizes: number[]): void {
  let offset = 0;
  let i = 0;
  while (offset < data.length) {
    const size = chunkSizes[i++ % chunkSizes.length]!;
    capture.write(data.subarray(offset, offset + size));
    offset += size;
  }
}

describe('BoundedCapture', () => {
  it.each([
    ['fits in the head', 10, [3]],
    ['exactly two windows', 32, [5, 7]],
    ['wraps the tail many times in small chunks', 1000, [1, 2, 3, 5, 8, 13]],
    ['chunks larger than the window', 1000, [40, 17]],
  ])('keeps the exact first and last bytes: %s', (_name, total, chunks) => {
    const window = 16;
    const data = Buffer.from(Array.from({ length: total }, (_, i) => 65 + (i % 26)));
    const capture = new BoundedCapture(window);
    feed(capture, data, chunks);
    const head = data.subarray(0, Math.min(window, total));
    const rest = data.subarray(head.length);
    const tail = rest.subarray(Math.max(0, rest.length - window));
    expect(capture.headBytes().equals(head)).toBe(true);
    expect(capture.tailBytes().equals(tail)).toBe(true);
    expect(capture.bytes).toBe(total);
    expect(capture.truncated).toBe(total > 2 * window);
    expect(capture.digest()).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('holds memory constant however much is written (two windows)', () => {
    const capture = new BoundedCapture(1024);
    const chunk = Buffer.alloc(64 * 1024, 120);
    for (let i = 0; i < 1600; i++) capture.write(chunk); // 100 MiB
    expect(capture.bytes).toBe(100 * 1024 * 1024);
    expect(capture.headBytes().length + capture.tailBytes().length).toBe(2048);
  });
});
