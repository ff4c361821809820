import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  DEFAULT_REFRESH_SCHEDULE,
  dueForRefresh,
  MAX_WALK_PERIOD_MS,
  periodStartNs,
  refreshBudget,
  refreshPeriodMs,
  REUSE_ANY_AGE,
  sweepDue,
  walkDue,
  walkPeriodMs,
  type RefreshSchedule,
} from "./refresh-schedule.js";

const NS_PER_MS = 1_000_000n;
/** An instant in epoch ns, as the collector's clock gives them. */
const T0 = 1_782_468_875_000_000_000n;

describe("the refresh schedule", () => {
  test("refresh period: max(minRefreshMs, pods × refreshPerPodMs)", () => {
    const pods = [0, 1, 5, 10, 11, 30, 110, 1000];
    assert.deepEqual(
      pods.map((n) => refreshPeriodMs(DEFAULT_REFRESH_SCHEDULE, n)),
      [1000, 1000, 1000, 1000, 1100, 3000, 11_000, 100_000],
    );
    const larger: RefreshSchedule = { minRefreshMs: 1000, refreshPerPodMs: 3000, walkPerPodMs: 300 };
    assert.deepEqual(
      [0, 1, 2].map((n) => refreshPeriodMs(larger, n)),
      [1000, 3000, 6000],
    );
  });

  test("walk period: pods × walkPerPodMs between minRefreshMs and 60 s, the kubelet's own", () => {
    assert.equal(MAX_WALK_PERIOD_MS, 60_000);
    const pods = [0, 3, 4, 5, 100, 110, 199, 200, 250];
    assert.deepEqual(
      pods.map((n) => walkPeriodMs(DEFAULT_REFRESH_SCHEDULE, n)),
      [1000, 1000, 1200, 1500, 30_000, 33_000, 59_700, 60_000, 60_000],
    );
    // A minimum longer than the cap wins over it, at any size.
    const slow: RefreshSchedule = { ...DEFAULT_REFRESH_SCHEDULE, minRefreshMs: 90_000 };
    assert.deepEqual(
      [1, 250].map((n) => walkPeriodMs(slow, n)),
      [90_000, 90_000],
    );
  });

  test("figures are due from the period's start on, and never-read figures always", () => {
    const start = periodStartNs(T0, 3000);
    assert.equal(start, T0 - 3000n * NS_PER_MS);
    assert.equal(dueForRefresh(start, start), true, "read at the period's start");
    assert.equal(dueForRefresh(start - 1n, start), true);
    assert.equal(dueForRefresh(start + 1n, start), false, "read a nanosecond after it");
    assert.equal(dueForRefresh(T0, start), false);
    assert.equal(dueForRefresh(undefined, start), true, "never read");
    // A memory wake reuses figures of any age, but cannot reuse what was never read.
    assert.equal(dueForRefresh(0n, REUSE_ANY_AGE), false);
    assert.equal(dueForRefresh(undefined, REUSE_ANY_AGE), true);
  });

  test("a housekeeping read's budget: every pod the first time, then its share of the period, rounded up, at least one", () => {
    assert.equal(refreshBudget(30, undefined, T0, 3000), 30);
    const after = (ms: number): bigint => T0 + BigInt(ms) * NS_PER_MS;
    // 30 pods, a 3 s period, one read a second: a third of the node each time.
    assert.equal(refreshBudget(30, T0, after(1000), 3000), 10);
    assert.equal(refreshBudget(30, T0, after(1001), 3000), 11);
    assert.equal(refreshBudget(30, T0, after(999), 3000), 10);
    // Reads close together still refresh one pod; a long gap may refresh them all.
    assert.equal(refreshBudget(30, T0, after(1), 3000), 1);
    assert.equal(refreshBudget(30, T0, T0, 3000), 1);
    assert.equal(refreshBudget(30, T0, after(9000), 3000), 90);
  });

  test("pods read together come due over one period, then stay spread out", () => {
    // 30 pods read at T0, a 3 s period, housekeeping every second: each read refreshes at most its
    // budget of the pods that are due, the oldest first.
    const readAt: bigint[] = Array.from({ length: 30 }, () => T0);
    let last: bigint | undefined = T0;
    const refreshed: number[] = [];
    for (let step = 1; step <= 9; step++) {
      const now = T0 + BigInt(step * 1000) * NS_PER_MS;
      let budget = refreshBudget(readAt.length, last, now, 3000);
      last = now;
      let count = 0;
      readAt.forEach((at, i) => {
        if (dueForRefresh(at, periodStartNs(now, 3000)) && budget > 0) {
          budget--;
          readAt[i] = now;
          count++;
        }
      });
      refreshed.push(count);
    }
    assert.deepEqual(refreshed, [0, 0, 10, 10, 10, 10, 10, 10, 10]);
  });

  test("walks are due once their period has passed; descriptors are swept every two refresh periods", () => {
    const walked = T0;
    assert.equal(walkDue(walked, T0 + 1500n * NS_PER_MS - 1n, 1500), false);
    assert.equal(walkDue(walked, T0 + 1500n * NS_PER_MS, 1500), true);
    assert.equal(sweepDue(T0, T0 + 6000n * NS_PER_MS - 1n, 3000), false);
    assert.equal(sweepDue(T0, T0 + 6000n * NS_PER_MS, 3000), true);
    // The collector has never swept at first (0): its first full read sweeps.
    assert.equal(sweepDue(0n, T0, 3000), true);
  });
});
