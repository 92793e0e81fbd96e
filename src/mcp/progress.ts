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

  constructor(
    private readonly send: SendProgress | undefined,
    private readonly onError: (error: unknown) => void,
  ) {}

  notify(message: string): void {
    if (!this.send) return;
    this.sent += 1;
    this.send(this.sent, message).catch(this.onError);
  }

  /** Reports `label` now and then every HEARTBEAT_MS with the time it has been running, until stop(). */
  start(label: string): void {
    this.stop();
    if (!this.send) return;
    const started = Date.now();
    this.notify(`${label}: started`);
    this.timer = setInterval(() => this.notify(`${label}: running for ${duration(Date.now() - started)}`), HEARTBEAT_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
