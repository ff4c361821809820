// The system clock's sleep: a sleep longer than a timer holds (a pod's grace period of 1e9 s) is
// waited out, not cut to 1 ms with a TimeoutOverflowWarning.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { systemClock } from "./system-clock.js";

describe("systemClock.sleep", () => {
  test("a sleep past 2^31-1 ms is still asleep later on and ends on abort; no TimeoutOverflowWarning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      const stop = new AbortController();
      let woke = false;
      const sleeping = systemClock.sleep(1e9 * 1000, stop.signal).then(() => (woke = true));
      // An overflowed timer fires after 1 ms: well before this check.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(woke, false, "the long sleep ended early");
      stop.abort();
      await sleeping;
      assert.equal(woke, true);
      assert.deepEqual(warnings, []);
    } finally {
      process.off("warning", onWarning);
    }
  });

  test("a short sleep ends by itself", async () => {
    await systemClock.sleep(5);
  });
});
