import type { VerifyEvent } from '../engine/context.js';

/**
 * Which checks a verify runs now, followed from its events, as the one
 * label its progress shows (the CLI's line, the MCP notifications): one
 * check by its place in the selection, "tests (2 of 5)"; checks side by
 * side by their ids, "lint, tests (2 of 5 started, 2 side by side)".
 */
export class RunningLabel {
  /** Each running check's place in the selection and when it started (ms). */
  private readonly places = new Map<string, { readonly index: number; readonly at: number }>();
  private total = 0;

  /** Takes in an event; answers the label of what runs now, or null when nothing does. */
  see(event: VerifyEvent): string | null {
    if (event.kind === 'check_started') {
      this.places.set(event.check.id, { index: event.index, at: Date.now() });
      this.total = event.total;
    } else {
      this.places.delete(event.check.id);
    }
    if (this.places.size === 0) return null;
    const ids = [...this.places.keys()];
    const last = Math.max(...[...this.places.values()].map((place) => place.index)) + 1;
    if (ids.length === 1) return this.total > 1 ? `${ids[0]} (${last} of ${this.total})` : ids[0]!;
    return `${ids.join(', ')} (${last} of ${this.total} started, ${ids.length} side by side)`;
  }

  /** When the longest-running of the checks running now started (ms since the epoch): the time progress shows. */
  since(): number {
    return Math.min(...[...this.places.values()].map((place) => place.at));
  }
}
