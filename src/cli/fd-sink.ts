import { writeSync } from 'node:fs';
import { nodeTty } from '../core/builtins.js';
import { nativeAddon } from '../core/native.js';
import type { Sink } from '../render/sink.js';
import { quietWhenReaderLeaves } from './io.js';

/**
 * The process's stdout or stderr as a Sink, written with blocking write(2)
 * calls, as Node writes to a file, a pipe or a terminal on Linux anyway,
 * without building process.stdout: that loads the stream and socket
 * machinery (about 8 ms), which a hook that prints one line of JSON
 * should not pay for.
 *
 * A reader that went away (EPIPE) drops what follows, as
 * quietWhenReaderLeaves does for a stream. A descriptor its opener made
 * non-blocking answers EAGAIN when its pipe is full: from then on this
 * sink writes through the process's own stream, which waits, and what was
 * not yet written goes first, so nothing is lost or reordered.
 */
export class FdSink implements Sink {
  private stream: NodeJS.WriteStream | undefined;
  private gone = false;

  constructor(
    private readonly fd: 1 | 2,
    private readonly open: () => NodeJS.WriteStream,
  ) {}

  get destroyed(): boolean {
    return this.gone || this.stream?.destroyed === true;
  }

  write(chunk: string | Uint8Array): boolean {
    if (this.stream) return this.stream.write(chunk);
    if (this.gone) return true;
    let rest = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    while (rest.length > 0) {
      try {
        rest = rest.subarray(writeSync(this.fd, rest));
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') {
          this.gone = true;
          return true;
        }
        if (code !== 'EAGAIN') throw error;
        this.stream = this.open();
        quietWhenReaderLeaves(this.stream);
        return this.stream.write(rest);
      }
    }
    return true;
  }
}

/** Whether `fd` is a terminal: through the addon when it is built, else node:tty (which loads the socket machinery). */
export function isTerminal(fd: number): boolean {
  const addon = nativeAddon().addon;
  if (addon) return addon.isatty(fd);
  return nodeTty().isatty(fd);
}
