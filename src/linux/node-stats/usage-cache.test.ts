/** The disk-measurement cache: served within the TTL, refreshed after it, one measurement for concurrent callers, failures not cached, idle keys dropped. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { UsageCache } from "./usage-cache.js";

const MS = 1_000_000n;

/** A clock moved by hand, and a measurement that counts its calls. */
function setup(ttlMs = 1000): {
  cache: UsageCache<number>;
  clock: { ns: bigint; nowNs(): bigint };
  calls: () => number;
  measure: () => Promise<number>;
} {
  const clock = {
    ns: 5_000n * MS,
    nowNs(): bigint {
      return this.ns;
    },
  };
  let n = 0;
  return {
    cache: new UsageCache<number>(ttlMs, clock),
    clock,
    calls: () => n,
    measure: () => Promise.resolve(++n),
  };
}

describe("UsageCache", () => {
  const cases = [
    { name: "within the TTL: cached", advanceMs: 999, wantValue: 1 },
    { name: "at the TTL: measured again", advanceMs: 1000, wantValue: 2 },
    { name: "well after: measured again", advanceMs: 60_000, wantValue: 2 },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const { cache, clock, measure } = setup();
      const first = await cache.get("/d", measure);
      assert.deepEqual(first, { value: 1, atNs: 5_000n * MS });
      clock.ns += BigInt(c.advanceMs) * MS;
      const again = await cache.get("/d", measure);
      assert.equal(again.value, c.wantValue);
      // A cached value keeps the time it was measured at.
      assert.equal(again.atNs, c.wantValue === 1 ? 5_000n * MS : clock.ns);
    });
  }

  test("keys are independent", async () => {
    const { cache, measure } = setup();
    assert.equal((await cache.get("/a", measure)).value, 1);
    assert.equal((await cache.get("/b", measure)).value, 2);
    assert.equal((await cache.get("/a", measure)).value, 1);
  });

  test("concurrent requests share one measurement", async () => {
    const { cache, calls } = setup();
    let release: (v: number) => void = () => {};
    const slow = (): Promise<number> => new Promise((resolve) => (release = resolve));
    const both = Promise.all([cache.get("/d", slow), cache.get("/d", slow)]);
    release(7);
    const [a, b] = await both;
    assert.equal(a.value, 7);
    assert.equal(b.value, 7);
    assert.equal(calls(), 0);
  });

  test("a failed measurement is not cached", async () => {
    const { cache, measure } = setup();
    await assert.rejects(
      cache.get("/d", () => Promise.reject(new Error("EIO"))),
      /EIO/,
    );
    assert.equal((await cache.get("/d", measure)).value, 1);
  });

  test("sweep drops keys idle for longer than asked, keeps the rest", async () => {
    const { cache, clock, measure } = setup();
    await cache.get("/old", measure);
    clock.ns += 5_000n * MS;
    await cache.get("/new", measure);
    cache.sweep(3_000);
    assert.equal(cache.size, 1);
    assert.equal((await cache.get("/new", measure)).value, 2); // still cached
  });
});
