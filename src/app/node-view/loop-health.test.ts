import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LoopHealth } from "./loop-health.js";

const HK = 10_000;
const fresh = (): LoopHealth =>
  new LoopHealth({ startedAt: 0, housekeepingIntervalMs: HK, cleanupTimeoutMs: 30_000 });

describe("LoopHealth", () => {
  test("healthy while steps come within three housekeeping periods; stuck after, with how long", () => {
    const h = fresh();
    assert.deepEqual(h.verdict(29_000), { ok: true }, "starting up");
    const none = h.verdict(31_000);
    assert.ok(!none.ok && /no stats read and sync in the 31\.0 s since the daemon started/.test(none.reason));
    h.observe({ now: 31_000, evicted: false });
    assert.deepEqual(h.verdict(61_000), { ok: true });
    const stuck = h.verdict(61_001);
    assert.ok(
      !stuck.ok && /no sync for 30\.0 s \(allowed: 30\.0 s, 3 housekeeping periods\)/.test(stuck.reason),
    );
  });

  test("after an eviction the cleanup wait is allowed too", () => {
    const h = fresh();
    h.observe({ now: 1000, evicted: true });
    assert.deepEqual(h.verdict(60_000), { ok: true });
    const stuck = h.verdict(61_001 + 1000);
    assert.ok(!stuck.ok && /and the cleanup wait after an eviction/.test(stuck.reason));
  });

  test("steps that fail to read the stats: healthy for the allowance, then the last error", () => {
    const h = fresh();
    h.observe({ now: 1000, evicted: false });
    for (let t = 2000; t <= 31_000; t += 1000)
      h.observe({ now: t, readError: "ENOENT memory.stat", evicted: false });
    assert.deepEqual(h.verdict(31_000), { ok: true }, "30 s since the last good read");
    h.observe({ now: 32_000, readError: "ENOENT memory.stat", evicted: false });
    const failing = h.verdict(32_000);
    assert.ok(!failing.ok && /stats reads have failed for 31\.0 s: ENOENT memory\.stat/.test(failing.reason));
    h.observe({ now: 33_000, evicted: false });
    assert.deepEqual(h.verdict(33_000), { ok: true }, "one good read heals it");
  });

  test("a loop that never read the stats says so", () => {
    const h = fresh();
    h.observe({ now: 40_000, readError: "EACCES", evicted: false });
    const v = h.verdict(40_000);
    assert.ok(!v.ok && /\(none has succeeded yet\): EACCES/.test(v.reason));
  });
});
