/**
 * Runs jobs one at a time, in the order they were queued. Verifications go
 * through one of these: two checks running at once in one workspace can
 * disturb each other's files, which the CLI avoids by running them in turn.
 */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  /** How many jobs are queued or running. */
  get pending(): number {
    return this.waiting;
  }

  run<T>(job: () => Promise<T>): Promise<T> {
    this.waiting++;
    const result = this.tail.then(job);
    this.tail = result.then(
      () => this.waiting--,
      () => this.waiting--,
    );
    return result;
  }
}
