/** The CrashLoopBackOff curve: 10 s doubling to 5 min, forgotten after a long run. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KUBELET_BACKOFF, backoffStepsAfterRun, restartDelayMs } from "./restart-backoff.js";

describe("restartDelayMs", () => {
  test("the kubelet's curve: 10, 20, 40, 80, 160 s, then 300 s for ever", () => {
    const delays = [0, 1, 2, 3, 4, 5, 6, 50, 5000].map(
      (steps) => restartDelayMs(KUBELET_BACKOFF, steps) / 1000,
    );
    assert.deepEqual(delays, [10, 20, 40, 80, 160, 300, 300, 300, 300]);
  });

  test("an injected base shortens the whole curve", () => {
    assert.deepEqual(
      [0, 1, 2, 3].map((s) => restartDelayMs({ baseMs: 100, maxMs: 500 }, s)),
      [100, 200, 400, 500],
    );
  });
});

describe("backoffStepsAfterRun", () => {
  const table = [
    { ranMs: 1_000, want: 4 },
    { ranMs: 600_000, want: 4 },
    { ranMs: 600_001, want: 0 },
  ];
  for (const { ranMs, want } of table) {
    test(`a run of ${ranMs} ms keeps ${want} steps (reset only beyond 2 × the 5 min cap)`, () => {
      assert.equal(backoffStepsAfterRun(KUBELET_BACKOFF, 4, 1_000_000, 1_000_000 + ranMs), want);
    });
  }
});
