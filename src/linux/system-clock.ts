/**
 * The wall clock and an abortable sleep, for the long-running commands and the node daemon's loop
 * thread: the kernel's clocks and timers, in the layer every one of them may import.
 */
import { performance } from "node:perf_hooks";
import type { ClockPort } from "../app/ports.js";
import { TIMER_MAX_MS } from "../core/time/timer-limit.js";

export const systemClock: ClockPort = {
  now: () => Date.now(),
  elapsed: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted === true) return resolve();
      let t: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        clearTimeout(t);
        resolve();
      };
      // A timer holds at most TIMER_MAX_MS (a longer one fires at once): a longer sleep (a pod's
      // grace period of 1e9 s) is waited out in steps.
      const wait = (left: number): void => {
        t = setTimeout(
          () => {
            if (left > TIMER_MAX_MS) return wait(left - TIMER_MAX_MS);
            signal?.removeEventListener("abort", onAbort);
            resolve();
          },
          Math.min(left, TIMER_MAX_MS),
        );
      };
      wait(ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};
