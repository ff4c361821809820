/**
 * How a daemon's main flow waits for its end: the operator's stop, or the eviction loop's failure,
 * whichever comes first.
 */

/** Resolves when `signal` aborts; rejects if `running` fails first (a loop that ended by itself is a failure too). */
export function untilAborted(signal: AbortSignal, running: Promise<void>): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    signal.addEventListener("abort", () => resolve(), { once: true });
    running.then(
      () => (signal.aborted ? resolve() : reject(new Error("the eviction loop ended by itself"))),
      reject,
    );
  });
}
