/** The wall clock and an abortable sleep, for the long-running commands. */
import { performance } from "node:perf_hooks";
import type { ClockPort } from "../app/ports.js";

export const systemClock: ClockPort = {
  now: () => Date.now(),
  elapsed: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted === true) return resolve();
      const onAbort = (): void => {
        clearTimeout(t);
        resolve();
      };
      const t = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};
