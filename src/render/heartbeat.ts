import type { Sink } from './sink.js';
import { duration } from './time.js';
import { oneLine } from './visible.js';

/** How often a running check is reported when stderr is not a terminal. */
export const HEARTBEAT_MS = 30_000;

/**
 * The interval from VOUCH_PROGRESS_INTERVAL_MS, which exists for tests (so
 * one need not wait 30 s); anything but a positive integer is the default.
 */
export function heartbeatInterval(env: NodeJS.ProcessEnv): number {
  const value = Number(env.VOUCH_PROGRESS_INTERVAL_MS);
  return Number.isSafeInteger(value) && value > 0 ? value : HEARTBEAT_MS;
}

/**
 * Progress for logs and pipes (CI, an agent reading stderr): no carriage
 * returns, one line per interval while a check runs,
 * "vouch: tests still running, 2m30s", so a long check is not mistaken for
 * a hung one. Nothing is printed for a check that ends within the interval.
 */
export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stream: Sink,
    private readonly intervalMs: number = HEARTBEAT_MS,
  ) {}

  /** Reports `label` with the time since `since` (ms since the epoch; default now) at every interval, until stop(). */
  start(label: string, since = Date.now()): void {
    this.stop();
    const started = since;
    const name = oneLine(label);
    this.timer = setInterval(() => this.stream.write(`vouch: ${name} still running, ${duration(Date.now() - started)}\n`), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
