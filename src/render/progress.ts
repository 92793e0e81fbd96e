import type { Sink } from './sink.js';
import type { Paint } from './color.js';
import { control } from './terminal.js';
import { oneLine } from './visible.js';
import { duration } from './time.js';

/**
 * One self-rewriting line on a terminal: which check runs and for how long.
 * Used only when stderr is a TTY; logs and pipes get no carriage returns.
 * The stream is the terminal boundary: the rewind is vouch's own token, and
 * the label (a check id) is escaped there like any other text.
 */
export class Progress {
  private timer: NodeJS.Timeout | undefined;
  private label = '';
  private started = 0;

  constructor(
    private readonly stream: Sink,
    private readonly p: Paint,
  ) {}

  /** Shows `label` and the time since `since` (ms since the epoch; default now), rewritten until stop(). */
  start(label: string, since = Date.now()): void {
    this.stop();
    this.label = oneLine(label);
    this.started = since;
    this.draw();
    this.timer = setInterval(() => this.draw(), 250);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.label) this.stream.write(control('rewindLine'));
    this.timer = undefined;
    this.label = '';
  }

  private draw(): void {
    this.stream.write(`${control('rewindLine')}${this.p.cyan('…')} ${this.label} ${this.p.dim(duration(Date.now() - this.started))}`);
  }
}
