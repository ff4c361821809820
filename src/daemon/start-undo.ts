/**
 * What a start of `evictd run` has created so far, undone in reverse when the start fails before
 * any pod could run: a refused start (exit 3) leaves the machine as it found it. Once pods may run,
 * the start is disarmed, and a failure is a shutdown that leaves the node for the next daemon.
 */
export class StartUndo {
  readonly #steps: (() => unknown)[] = [];
  #armed = true;

  /** One more thing to undo, after (so before, when undone) those pushed so far. */
  push(step: () => unknown): void {
    this.#steps.push(step);
  }

  /** From here on pods may run: a failure is a shutdown, not an undo. */
  disarm(): void {
    this.#armed = false;
  }

  get armed(): boolean {
    return this.#armed;
  }

  /** Undoes every step, the latest first, while armed; a step that fails does not stop the others. */
  async run(): Promise<void> {
    if (!this.#armed) return;
    for (const step of this.#steps.reverse()) {
      try {
        await step();
      } catch {
        // Undoing while failing: what cannot be undone stays, the original error is what matters.
      }
    }
  }
}
