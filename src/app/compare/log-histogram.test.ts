import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LogHistogram } from "./log-histogram.js";

describe("LogHistogram", () => {
  test("the minimum is exact; a percentile is within 1.1% below the true value, never above", () => {
    const h = new LogHistogram();
    const values = Array.from({ length: 1000 }, (_, i) => 1_000_000 + i * 997_331);
    for (const v of values) h.add(v);
    assert.equal(h.min, 1_000_000);
    assert.equal(h.count, 1000);
    const sorted = [...values].sort((a, b) => a - b);
    for (const p of [1, 5, 50, 99]) {
      const exact = sorted[Math.ceil((p / 100) * sorted.length) - 1] ?? 0;
      const got = h.percentile(p) ?? Number.NaN;
      assert.ok(got <= exact && got >= exact / 1.011, `p${p}: ${got} against ${exact}`);
    }
  });

  test("merging parts split any way gives exactly the histogram of the whole", () => {
    const values = Array.from(
      { length: 500 },
      (_, i) => ((i * 7919) % 1013) * 4096 - (i % 17 === 0 ? 5000 : 0),
    );
    const whole = new LogHistogram();
    for (const v of values) whole.add(v);
    for (const parts of [2, 3, 7]) {
      const merged = new LogHistogram();
      for (let k = parts - 1; k >= 0; k--) {
        const part = new LogHistogram();
        values.filter((_, i) => i % parts === k).forEach((v) => part.add(v));
        merged.merge(JSON.parse(JSON.stringify(part)) as ReturnType<LogHistogram["toJSON"]>);
      }
      assert.deepEqual(merged.toJSON(), whole.toJSON(), `${parts} parts`);
    }
    assert.equal(whole.min, -5000, "values at or below 0 keep their exact minimum");
  });

  test("empty: no minimum, no percentile", () => {
    const h = new LogHistogram();
    assert.equal(h.percentile(1), undefined);
    assert.deepEqual(h.toJSON(), { count: 0, min: null, buckets: [] });
  });
});
