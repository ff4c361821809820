/** RFC 3339 formatting (Go's RFC3339Nano) and the nanosecond clock behind the collector's time stamps. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parseRfc3339 } from "../../core/time/rfc3339.js";
import { NanoClock } from "./nano-clock.js";
import { formatRfc3339Ms, formatRfc3339Nano } from "./rfc3339-nano.js";

describe("formatRfc3339Nano", () => {
  const cases = [
    { name: "whole second: no fraction", ns: 1_782_468_875_000_000_000n, want: "2026-06-26T10:14:35Z" },
    { name: "nanoseconds", ns: 1_782_468_875_123_456_789n, want: "2026-06-26T10:14:35.123456789Z" },
    { name: "trailing zeros dropped", ns: 1_782_468_875_120_000_000n, want: "2026-06-26T10:14:35.12Z" },
    { name: "leading zeros kept", ns: 1_782_468_875_000_000_100n, want: "2026-06-26T10:14:35.0000001Z" },
    { name: "epoch", ns: 0n, want: "1970-01-01T00:00:00Z" },
    { name: "before the epoch", ns: -1n, want: "1969-12-31T23:59:59.999999999Z" },
  ];
  for (const c of cases) test(c.name, () => assert.equal(formatRfc3339Nano(c.ns), c.want));

  test("the engine's reader reads it back to the microsecond", () => {
    const back = parseRfc3339(formatRfc3339Nano(1_782_468_875_123_456_789n));
    assert.equal(typeof back, "number");
    assert.ok(Math.abs((back as number) - 1_782_468_875_123.456) < 0.001, String(back));
  });

  test("milliseconds", () => {
    assert.equal(formatRfc3339Ms(1_782_468_875_250), "2026-06-26T10:14:35.25Z");
    assert.equal(formatRfc3339Ms(1_782_468_875_000.5), "2026-06-26T10:14:35.0005Z");
  });
});

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
