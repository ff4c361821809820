/** The nanosecond clock behind the collector's time stamps. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { NanoClock } from "./nano-clock.js";

describe("NanoClock", () => {
  /** Hand-driven clocks: wall in ms, monotonic in ns. */
  function fake(wall: number, mono: bigint): { wall: number; mono: bigint; clock: NanoClock } {
    const state = { wall, mono, clock: undefined as unknown as NanoClock };
    state.clock = new NanoClock({ wallMs: () => state.wall, monotonicNs: () => state.mono });
    return state;
  }

  test("sub-millisecond digits come from the monotonic clock", () => {
    const s = fake(1000, 5_000_000_000n);
    s.mono += 250_123n;
    assert.equal(s.clock.nowNs(), 1000n * 1_000_000n + 250_123n);
    s.mono += 1_500_000n;
    s.wall = 1001;
    assert.equal(s.clock.nowNs(), 1000n * 1_000_000n + 1_750_123n);
  });

  test("re-anchors when the wall clock jumps forward", () => {
    const s = fake(1000, 0n);
    s.wall = 61_000; // NTP step of a minute
    s.mono += 10n;
    assert.equal(s.clock.nowNs(), 61_000n * 1_000_000n);
  });

  test("never goes backwards when the wall clock steps back", () => {
    const s = fake(10_000, 0n);
    s.mono = 500_000n;
    const first = s.clock.nowNs();
    s.wall = 5_000;
    s.mono = 600_000n;
    assert.equal(s.clock.nowNs(), first);
  });

  test("the real clock stays within a few ms of Date.now()", () => {
    const clock = new NanoClock();
    const diff = clock.nowMs() - Date.now();
    assert.ok(Math.abs(diff) < 5, `drift ${diff} ms`);
  });
});
