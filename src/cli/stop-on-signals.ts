/**
 * SIGINT and SIGTERM as an AbortSignal, for the long-running commands (run, demo, watch, record).
 * The handlers are installed with `once` and removed by `dispose()`, so a command that returns
 * leaves the process's signal handling as it found it.
 */

/** An abort controller tied to the process's stop signals. */
export interface SignalStop {
  /** Aborts when SIGINT or SIGTERM arrives (or when `controller.abort()` is called). */
  readonly signal: AbortSignal;
  readonly controller: AbortController;
  /** Removes the signal handlers. */
  dispose(): void;
}

/** Aborts on the first SIGINT or SIGTERM; `onStop` runs first (a log line, a note on stdout). */
export function stopOnSignals(onStop?: (signal: NodeJS.Signals) => void): SignalStop {
  const controller = new AbortController();
  const handler = (sig: NodeJS.Signals): void => {
    onStop?.(sig);
    controller.abort();
  };
  process.once("SIGINT", handler);
  process.once("SIGTERM", handler);
  return {
    signal: controller.signal,
    controller,
    dispose: () => {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
    },
  };
}
