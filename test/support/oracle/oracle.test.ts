// Tests for the tests' oracle itself: the readings the data suites compare the engine against.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { formatGoSeconds, parseGoDuration, sameGoDuration } from "./duration.js";
import { parseQuantity, quantityMilli, sameQuantity } from "./quantity.js";
import { percentFraction, sameThresholdValue, thresholdAmount } from "./threshold-value.js";

describe("oracle quantities", () => {
  test("exact values for every suffix form", () => {
    assert.deepEqual(parseQuantity("1Gi"), { num: 1073741824n, den: 1n });
    assert.deepEqual(parseQuantity("1.5Ki"), { num: 15n * 1024n, den: 10n });
    assert.deepEqual(parseQuantity("100m"), { num: 100n, den: 1000n });
    assert.deepEqual(parseQuantity("2e3"), { num: 2000n, den: 1n });
    assert.deepEqual(parseQuantity("-.5"), { num: -5n, den: 10n });
  });

  test("not quantities", () => {
    for (const t of ["", "Mi", "1.2.3", "1Kb", "1 Gi", "e3", "."])
      assert.equal(parseQuantity(t), undefined, t);
  });

  test("equality across forms", () => {
    assert.ok(sameQuantity("1Gi", "1024Mi"));
    assert.ok(sameQuantity("1500m", "1.5"));
    assert.ok(!sameQuantity("1G", "1Gi"));
    assert.ok(!sameQuantity("1Gi", "lots"));
  });

  test("milli-units round away from zero", () => {
    assert.equal(quantityMilli("100u"), 1n);
    assert.equal(quantityMilli("-100u"), -1n);
    assert.equal(quantityMilli("500m"), 500n);
    assert.equal(quantityMilli("1Ki"), 1024_000n);
    assert.throws(() => quantityMilli("x"), /not a quantity/);
  });
});

describe("oracle durations", () => {
  test("Go duration strings in nanoseconds", () => {
    assert.equal(parseGoDuration("1m30s"), 90e9);
    assert.equal(parseGoDuration("1.5h"), 5400e9);
    assert.equal(parseGoDuration("250ms"), 250e6);
    assert.equal(parseGoDuration("0"), 0);
    assert.equal(parseGoDuration("-2s"), -2e9);
    assert.equal(parseGoDuration("90"), undefined);
    assert.ok(sameGoDuration("90s", "1m30s"));
    assert.ok(!sameGoDuration("90s", 90));
  });

  test("whole seconds as Duration.String prints them", () => {
    assert.deepEqual([0, 50, 60, 100, 3605].map(formatGoSeconds), ["0s", "50s", "1m0s", "1m40s", "1h0m5s"]);
  });
});

describe("oracle threshold values", () => {
  test("percentages are float32 fractions", () => {
    assert.equal(percentFraction("10%"), Math.fround(0.1));
    assert.equal(percentFraction("10"), undefined);
    assert.ok(sameThresholdValue("10%", "10.0%"));
    assert.ok(!sameThresholdValue("10%", "100Mi"));
    assert.ok(sameThresholdValue("1Gi", "1073741824"));
  });

  test("amounts: a quantity as is, a percentage truncated against the capacity", () => {
    assert.equal(thresholdAmount("100Mi", 0n), 104857600n);
    // float32(0.15) is a little above 0.15: 1000 × 0.15000000596 truncates to 150.
    assert.equal(thresholdAmount("15%", 1000n), 150n);
    assert.equal(thresholdAmount("10%", 1001n), 100n);
  });
});
