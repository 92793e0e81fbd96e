import type { Hash } from 'node:crypto';
import { nodeCrypto } from '../core/builtins.js';
import type { Sha256 } from '../core/digest.js';

/**
 * Captures a stream within a fixed memory bound: the first and the last
 * `window` bytes, plus a running SHA-256 and byte count of everything. A
 * check printing 200 MB costs two windows of memory, not 200 MB.
 */
export class BoundedCapture {
  private readonly hash: Hash = nodeCrypto().createHash('sha256');
  private readonly head: Buffer;
  private headLength = 0;
  private readonly tail: Buffer;
  private tailStart = 0;
  private tailLength = 0;
  private total = 0;

  constructor(private readonly window: number) {
    this.head = Buffer.alloc(window);
    this.tail = Buffer.alloc(window);
  }

  write(chunk: Buffer): void {
    this.hash.update(chunk);
    this.total += chunk.length;
    let data = chunk;
    if (this.headLength < this.window) {
      const take = Math.min(this.window - this.headLength, data.length);
      data.copy(this.head, this.headLength, 0, take);
      this.headLength += take;
      data = data.subarray(take);
    }
    if (data.length > 0) this.pushTail(data);
  }

  private pushTail(data: Buffer): void {
    if (data.length >= this.window) {
      data.copy(this.tail, 0, data.length - this.window);
      this.tailStart = 0;
      this.tailLength = this.window;
      return;
    }
    for (let written = 0; written < data.length;) {
      const end = (this.tailStart + this.tailLength) % this.window;
      if (this.tailLength === this.window) {
        // Full: overwrite the oldest bytes.
        const n = Math.min(data.length - written, this.window - this.tailStart);
        data.copy(this.tail, this.tailStart, written, written + n);
        this.tailStart = (this.tailStart + n) % this.window;
        written += n;
      } else {
        const n = Math.min(data.length - written, this.window - end, this.window - this.tailLength);
        data.copy(this.tail, end, written, written + n);
        this.tailLength += n;
        written += n;
      }
    }
  }

  /** Everything written, in bytes. */
  get bytes(): number {
    return this.total;
  }

  /** True when the middle of the stream was dropped. */
  get truncated(): boolean {
    return this.total > this.headLength + this.tailLength;
  }

  digest(): Sha256 {
    return this.hash.copy().digest('hex') as Sha256;
  }

  /** The first bytes kept. */
  headBytes(): Buffer {
    return this.head.subarray(0, this.headLength);
  }

  /** The last bytes kept (after the head), in order. */
  tailBytes(): Buffer {
    const first = this.tail.subarray(this.tailStart, Math.min(this.window, this.tailStart + this.tailLength));
    const wrapped = this.tail.subarray(0, this.tailLength - first.length);
    return Buffer.concat([first, wrapped]);
  }

  /** The whole stream when it fit, else head and tail. */
  text(): { readonly head: string; readonly tail: string; readonly complete: boolean } {
    return { head: this.headBytes().toString('utf8'), tail: this.tailBytes().toString('utf8'), complete: !this.truncated };
  }
}
