// Tests for percentage.ts: Go ParseFloat(s, 32) fidelity, float32 division, and percent-of-capacity maths.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  PercentageError,
  formatPercentage,
  parseGoFloat32,
  parsePercentage,
  percentOf,
} from "./percentage.js";

const MIN_INT64 = -(1n << 63n);
const MAX_FLOAT32 = 3.4028234663852886e38;

describe("parsePercentage", () => {
  const cases: Array<[input: string, want: number]> = [
    ["10%", Math.fround(Math.fround(10) / 100)],
    ["10%%", Math.fround(Math.fround(10) / 100)],
    ["10", Math.fround(Math.fround(10) / 100)],
    ["5%", Math.fround(0.05)],
    ["15%", Math.fround(0.15)],
    ["100%", 1],
    ["100.0%", 1],
    ["0.0%", 0],
    ["00%", 0],
    ["1e1%", Math.fround(0.1)],
    ["1E1%", Math.fround(0.1)],
    [".5%", Math.fround(Math.fround(0.5) / 100)],
    ["+5%", Math.fround(0.05)],
    ["-5%", -Math.fround(0.05)],
    ["150%", 1.5],
    ["1_0%", Math.fround(0.1)], // Go float syntax: underscores between digits
    ["0x1p-2%", Math.fround(0.25 / 100)],
    ["0X1.8P1%", 0.03],
    ["Inf%", Infinity],
    ["+Inf%", Infinity],
    ["-Inf%", -Infinity],
    ["infinity%", Infinity],
    ["INFINITY%", Infinity],
    ["1e-46%", 0], // underflows to zero without an error
    ["3.4028235e38%", Math.fround(MAX_FLOAT32 / 100)],
  ];
  for (const [input, want] of cases) {
    test(input, () => assert.equal(parsePercentage(input), Math.fround(want)));
  }
  test("10% is the float32 0.1, not 0.1", () => {
    assert.equal(parsePercentage("10%"), 0.10000000149011612);
  });
  test("NaN is accepted (and passes the kubelet's range checks)", () => {
    assert.ok(Number.isNaN(parsePercentage("NaN%")));
    assert.ok(Number.isNaN(parsePercentage("nan%")));
  });
  test("-0% keeps its sign", () => assert.ok(Object.is(parsePercentage("-0%"), -0)));
});

describe("parsePercentage errors carry Go's NumError text", () => {
  const cases: Array<[input: string, message: string]> = [
    ["%", 'strconv.ParseFloat: parsing "": invalid syntax'],
    ["", 'strconv.ParseFloat: parsing "": invalid syntax'],
    ["10 %", 'strconv.ParseFloat: parsing "10 ": invalid syntax'],
    [" 10%", 'strconv.ParseFloat: parsing " 10": invalid syntax'],
    ["abc%", 'strconv.ParseFloat: parsing "abc": invalid syntax'],
    ["10%x%", 'strconv.ParseFloat: parsing "10%x": invalid syntax'],
    ["1.2.3%", 'strconv.ParseFloat: parsing "1.2.3": invalid syntax'],
    [".%", 'strconv.ParseFloat: parsing ".": invalid syntax'],
    ["1e%", 'strconv.ParseFloat: parsing "1e": invalid syntax'],
    ["1e+%", 'strconv.ParseFloat: parsing "1e+": invalid syntax'],
    ["0x1%", 'strconv.ParseFloat: parsing "0x1": invalid syntax'], // hex needs a p exponent
    ["_1%", 'strconv.ParseFloat: parsing "_1": invalid syntax'],
    ["1__0%", 'strconv.ParseFloat: parsing "1__0": invalid syntax'],
    ["10_%", 'strconv.ParseFloat: parsing "10_": invalid syntax'],
    ["+nan%", 'strconv.ParseFloat: parsing "+nan": invalid syntax'],
    ["infin%", 'strconv.ParseFloat: parsing "infin": invalid syntax'],
    ["infx%", 'strconv.ParseFloat: parsing "infx": invalid syntax'],
    ['"1"%', 'strconv.ParseFloat: parsing "\\"1\\"": invalid syntax'],
    ["1\t%", 'strconv.ParseFloat: parsing "1\\t": invalid syntax'],
    ["1\u0001%", 'strconv.ParseFloat: parsing "1\\x01": invalid syntax'],
    ["1\u00a0%", 'strconv.ParseFloat: parsing "1\\u00a0": invalid syntax'],
    ["1µ%", 'strconv.ParseFloat: parsing "1µ": invalid syntax'],
    ["1e39%", 'strconv.ParseFloat: parsing "1e39": value out of range'],
    ["-1e39%", 'strconv.ParseFloat: parsing "-1e39": value out of range'],
    ["3.4028236e38%", 'strconv.ParseFloat: parsing "3.4028236e38": value out of range'],
    ["0x1p128%", 'strconv.ParseFloat: parsing "0x1p128": value out of range'],
    ["1e39x%", 'strconv.ParseFloat: parsing "1e39x": invalid syntax'],
  ];
  for (const [input, message] of cases) {
    test(JSON.stringify(input), () => {
      assert.throws(
        () => parsePercentage(input),
        (e: unknown) => e instanceof PercentageError && e.message === message && e.input === input,
      );
    });
  }
});

describe("parseGoFloat32 rounds decimal text straight to float32", () => {
  test("a value just above a float32 tie rounds up (fround(parseFloat) would round down)", () => {
    const text = "1.0000000596046447753906250000000001"; // 1 + 2^-24 + 1e-34
    assert.deepEqual(parseGoFloat32(text), { ok: true, value: 1 + 2 ** -23 });
    assert.equal(Math.fround(parseFloat(text)), 1);
  });
  test("an exact tie rounds to even", () => {
    assert.deepEqual(parseGoFloat32("1.000000059604644775390625"), { ok: true, value: 1 });
    assert.deepEqual(parseGoFloat32("1.000000178813934326171875"), { ok: true, value: 1 + 2 ** -22 });
  });
  test("subnormals and the largest float32", () => {
    assert.deepEqual(parseGoFloat32("1e-45"), { ok: true, value: 2 ** -149 });
    assert.deepEqual(parseGoFloat32("0x1p-149"), { ok: true, value: 2 ** -149 });
    assert.deepEqual(parseGoFloat32("0x1p-150"), { ok: true, value: 0 });
    assert.deepEqual(parseGoFloat32("0x1.8p-150"), { ok: true, value: 2 ** -149 });
    assert.deepEqual(parseGoFloat32("0x1.fffffep127"), { ok: true, value: MAX_FLOAT32 });
    assert.deepEqual(parseGoFloat32("0x1.ffffffp127"), { ok: false, reason: "range" });
    assert.deepEqual(parseGoFloat32("1_23.50_0_0e+1_2"), { ok: true, value: Math.fround(1.235e14) });
    assert.deepEqual(parseGoFloat32("0x_1_2.3_4_5p+1_2"), { ok: true, value: 74565 });
  });
  /** True when d lies exactly halfway between two float32 values: only then can fround(d) double-round. */
  const isFloat32Tie = (d: number): boolean => {
    const f = Math.fround(d);
    if (f === d || !Number.isFinite(f)) return false;
    const view = new DataView(new ArrayBuffer(4));
    view.setFloat32(0, f);
    view.setUint32(0, view.getUint32(0) + (d > f === f > 0 ? 1 : -1));
    return Math.abs(d - f) === Math.abs(view.getFloat32(0) - d);
  };
  test("agrees with fround(parseFloat) whenever the nearest double is not a float32 tie", () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer({ min: 1, max: 21 }),
        (x, p) => {
          const text = x.toPrecision(p);
          const d = parseFloat(text);
          if (isFloat32Tie(d)) return;
          const want = Math.fround(d);
          if (Number.isFinite(want)) assert.deepEqual(parseGoFloat32(text), { ok: true, value: want });
          else assert.deepEqual(parseGoFloat32(text), { ok: false, reason: "range" });
        },
      ),
      { numRuns: 5000 },
    );
  });
  test("any string yields a value or a PercentageError, never anything else", () => {
    const check = (s: string): void => {
      try {
        assert.equal(typeof parsePercentage(s), "number");
      } catch (e) {
        if (!(e instanceof PercentageError)) throw e;
      }
    };
    fc.assert(fc.property(fc.string(), check), { numRuns: 2000 });
    fc.assert(fc.property(fc.string({ unit: "binary" }), check), { numRuns: 2000 });
    const nearMiss = fc.string({ unit: fc.constantFrom(..."0123456789.+-eEpPxX_%infatyNI "), maxLength: 14 });
    fc.assert(fc.property(nearMiss, check), { numRuns: 10000 });
  });
});

describe("percentOf (GetThresholdQuantity)", () => {
  const cases: Array<[capacity: bigint, text: string, want: bigint]> = [
    [8589934592n, "10%", 858993472n], // not 858993459: float32 0.1 is 0.100000001490116
    [17179869184n, "15%", 2576980480n],
    [1000000n, "5%", 50000n],
    [8589934592n, "100%", 8589934592n],
    [8589934592n, "0.0%", 0n],
    [1000n, "33.3%", 333n],
    [1000n, "-5%", -50n],
  ];
  for (const [capacity, text, want] of cases) {
    test(`${text} of ${capacity}`, () => assert.equal(percentOf(capacity, parsePercentage(text)), want));
  }
  test("NaN, infinities and out-of-range products become MinInt64 (amd64 conversion)", () => {
    assert.equal(percentOf(1000n, NaN), MIN_INT64);
    assert.equal(percentOf(1000n, Infinity), MIN_INT64);
    assert.equal(percentOf(1000n, -Infinity), MIN_INT64);
    assert.equal(percentOf(1n << 62n, 4), MIN_INT64);
    assert.equal(percentOf(1n << 62n, -2), MIN_INT64);
    assert.equal(percentOf(0n, Infinity), MIN_INT64); // 0 × Inf is NaN
  });
});

describe("formatPercentage", () => {
  for (const [input, want] of [
    ["10%", "10%"],
    ["10%%%", "10%"],
    ["10", "10%"],
    ["0.0%", "0.0%"],
  ] as const) {
    test(input, () => assert.equal(formatPercentage(input), want));
  }
});
