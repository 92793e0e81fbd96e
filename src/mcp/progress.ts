import { duration } from '../render/time.js';

/** Sends one progress notification; supplied by the server for calls that asked for progress. */
export type SendProgress = (progress: number, message: string) => Promise<void>;

/** How often a running check reports that it is still running. */
export const HEARTBEAT_MS = 1000;

/**
 * Progress of one tool call, as MCP progress notifications. The progress
 * value counts notifications, so it rises with each one as the protocol
 * requires even when the total time is unknown; the message says what is
 * happening. A call that sent no progress token gets none.
 */
export class Progress {
  private sent = 0;
  private timer: NodeJS.Timeout | undefined;
  private label = '';
  private since = 0;

  constructor(
    private readonly send: SendProgress | undefined,
    private readonly onError: (error: unknown) => void,
  ) {}

  notify(message: string): void {
    if (!this.send) return;
    this.sent += 1;
    this.send(this.sent, message).catch(this.onError);
  }

  /**
   * Reports `label` now and then every HEARTBEAT_MS with the time since
   * `since` (ms since the epoch; default now), until stop().
   */
  start(label: string, since = Date.now()): void {
    this.notify(`${label}: started`);
    this.relabel(label, since);
  }

  /** Goes on reporting, under a new label (checks side by side: one ended, others run on); the interval is not restarted. */
  relabel(label: string, since: number): void {
    if (!this.send) return;
    this.label = label;
    this.since = since;
    this.timer ??= setInterval(() => this.notify(`${this.label}: running for ${duration(Date.now() - this.since)}`), HEARTBEAT_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
