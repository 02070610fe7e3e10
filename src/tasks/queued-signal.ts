// Tells the task runner of this process that a task was queued, so it claims it at once instead of
// at its next look at the queue (up to a poll interval later). Runners in other processes still find
// the task by polling.

export class QueuedSignal {
  readonly #listeners = new Set<() => void>();

  /** Calls `listener` at each notify() until the answer is called. */
  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A task was committed to the queue. */
  notify(): void {
    for (const listener of this.#listeners) listener();
  }
}
