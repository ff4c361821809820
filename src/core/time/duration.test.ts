// Table-driven and property tests for duration.ts against Go's time.ParseDuration / Duration.String.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { DurationError, durationToMs, formatGoDuration, parseGoDuration } from "./duration.js";

const S = 1_000_000_000n;
const MAX = (1n << 63n) - 1n;
const MIN = -(1n << 63n);

describe("parseGoDuration", () => {
  const cases: Array<[input: string, ns: bigint]> = [
    ["0", 0n],
    ["-0", 0n],
    ["+0", 0n],
    ["0s", 0n],
    ["5s", 5n * S],
    ["30s", 30n * S],
    ["1478s", 1478n * S],
    ["-5s", -5n * S],
    ["+5s", 5n * S],
    ["-0s", 0n],
    ["5.0s", 5n * S],
    ["5.6s", 5n * S + 600_000_000n],
    ["5.s", 5n * S],
    [".5s", S / 2n],
    ["1.0s", S],
    ["1.00s", S],
    ["1.004s", S + 4_000_000n],
    ["1.0040s", S + 4_000_000n],
    ["100.00100s", 100n * S + 1_000_000n],
    ["10ns", 10n],
    ["11us", 11_000n],
    ["12µs", 12_000n], // U+00B5 micro sign
    ["12μs", 12_000n], // U+03BC Greek mu
    ["13ms", 13_000_000n],
    ["14s", 14n * S],
    ["15m", 15n * 60n * S],
    ["16h", 16n * 3600n * S],
    ["3h30m", (3n * 3600n + 30n * 60n) * S],
    ["1h30m", 5400n * S],
    ["2h45m", (2n * 3600n + 45n * 60n) * S],
    ["10.5s4m", 4n * 60n * S + 10n * S + S / 2n],
    ["-2m3.4s", -(2n * 60n * S + 3n * S + 400_000_000n)],
    ["1h2m3s4ms5us6ns", 3600n * S + 120n * S + 3n * S + 4_000_000n + 5_000n + 6n],
    ["39h9m14.425s", (39n * 3600n + 9n * 60n + 14n) * S + 425_000_000n],
    ["1.5h", 5400n * S],
    ["300ms", 300_000_000n],
    ["52763797000ns", 52_763_797_000n],
    ["0.3333333333333333333h", 20n * 60n * S], // the fraction is computed in float64, as in Go
    ["0.100000000000000000000h", 6n * 60n * S],
    ["0.830103483285477580700h", 49n * 60n * S + 48_372_539_827n],
    ["9223372036854775807ns", MAX],
    ["9223372036854775.807us", MAX],
    ["9223372036s854ms775us807ns", MAX],
    ["-9223372036854775808ns", MIN],
    ["-9223372036854775.808us", MIN],
    ["-2562047h47m16.854775808s", MIN],
    ["9223372036854775808ns9223372036854775808ns", 0n], // Go's uint64 accumulator wraps to 0
  ];
  for (const [input, want] of cases) {
    test(input, () => assert.equal(parseGoDuration(input), want));
  }
});

describe("parseGoDuration errors use Go's exact text", () => {
  const cases: Array<[input: string, message: string]> = [
    ["", 'time: invalid duration ""'],
    ["3", 'time: missing unit in duration "3"'],
    ["30", 'time: missing unit in duration "30"'],
    ["-", 'time: invalid duration "-"'],
    ["s", 'time: invalid duration "s"'],
    [".", 'time: invalid duration "."'],
    ["-.", 'time: invalid duration "-."'],
    [".s", 'time: invalid duration ".s"'],
    ["+.s", 'time: invalid duration "+.s"'],
    ["1d", 'time: unknown unit "d" in duration "1d"'],
    ["1h1", 'time: missing unit in duration "1h1"'],
    ["1e3s", 'time: unknown unit "e" in duration "1e3s"'],
    ["1 s", 'time: unknown unit " s" in duration "1 s"'],
    ["1.5 h", 'time: unknown unit " h" in duration "1.5 h"'],
    ["\x85\x85", 'time: invalid duration "\\xc2\\x85\\xc2\\x85"'],
    ["\xffff", 'time: invalid duration "\\xc3\\xbfff"'],
    ["hello \xffff world", 'time: invalid duration "hello \\xc3\\xbfff world"'],
    ["\uFFFD", 'time: invalid duration "\\xef\\xbf\\xbd"'],
    ["1µ", 'time: unknown unit "\\xc2\\xb5" in duration "1\\xc2\\xb5"'],
    ["1\n", 'time: unknown unit "\\x0a" in duration "1\\x0a"'],
    ['1"s', 'time: unknown unit "\\"s" in duration "1\\"s"'],
    ["1\\s", 'time: unknown unit "\\\\s" in duration "1\\\\s"'],
    ["9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'],
    ["9223372036854775.808us", 'time: invalid duration "9223372036854775.808us"'],
    ["-9223372036854775809ns", 'time: invalid duration "-9223372036854775809ns"'],
    ["3000000h", 'time: invalid duration "3000000h"'],
    ["9223372036854775807ns1ns", 'time: invalid duration "9223372036854775807ns1ns"'],
    ["99999999999999999999s", 'time: invalid duration "99999999999999999999s"'],
  ];
  for (const [input, message] of cases) {
    test(JSON.stringify(input), () => {
      assert.throws(
        () => parseGoDuration(input),
        (e: unknown) => e instanceof DurationError && e.message === message && e.input === input,
      );
    });
  }
});

describe("formatGoDuration", () => {
  const cases: Array<[ns: bigint, want: string]> = [
    [0n, "0s"],
    [1n, "1ns"],
    [1_100n, "1.1µs"],
    [1_500n, "1.5µs"],
    [2_200_000n, "2.2ms"],
    [300_000_000n, "300ms"],
    [3_300_000_000n, "3.3s"],
    [1_500_000_000n, "1.5s"],
    [90n * S, "1m30s"],
    [4n * 60n * S + 5n * S, "4m5s"],
    [4n * 60n * S + 5n * S + 1_000_000n, "4m5.001s"],
    [5n * 60n * S, "5m0s"],
    [3600n * S, "1h0m0s"],
    [(2n * 3600n + 45n * 60n) * S, "2h45m0s"],
    [5n * 3600n * S + 6n * 60n * S + 7_001_000_000n, "5h6m7.001s"],
    [8n * 60n * S + 1n, "8m0.000000001s"],
    [-1n, "-1ns"],
    [-1_500_000_000n, "-1.5s"],
    [MAX, "2562047h47m16.854775807s"],
    [MIN, "-2562047h47m16.854775808s"],
  ];
  for (const [ns, want] of cases) {
    test(want, () => assert.equal(formatGoDuration(ns), want));
  }
  test("values outside int64 wrap like a Go Duration", () => {
    assert.equal(formatGoDuration(1n << 63n), "-2562047h47m16.854775808s");
  });
});

describe("durationToMs", () => {
  test("exact for whole and fractional milliseconds", () => {
    assert.equal(durationToMs(0n), 0);
    assert.equal(durationToMs(90n * S), 90_000);
    assert.equal(durationToMs(1_500_000n), 1.5);
    assert.equal(durationToMs(-1_500_000n), -1.5);
    assert.equal(durationToMs(parseGoDuration("1m30s")), 90_000);
  });
});

describe("duration properties", () => {
  const int64 = fc.bigInt({ min: MIN, max: MAX });
  test("formatting then parsing gives back the same nanoseconds", () => {
    fc.assert(
      fc.property(fc.oneof(int64, fc.bigInt({ min: -(10n ** 13n), max: 10n ** 13n })), (ns) => {
        assert.equal(parseGoDuration(formatGoDuration(ns)), ns);
      }),
      { numRuns: 3000 },
    );
  });
  const onlyDurationErrors = (s: string): void => {
    try {
      const ns = parseGoDuration(s);
      assert.ok(ns >= MIN && ns <= MAX);
    } catch (e) {
      if (!(e instanceof DurationError)) throw e;
      assert.match(
        e.message,
        /^time: (invalid duration|missing unit in duration|unknown unit ".*" in duration) "/s,
      );
    }
  };
  test("any string parses or throws a DurationError, never anything else", () => {
    fc.assert(fc.property(fc.string(), onlyDurationErrors), { numRuns: 2000 });
    fc.assert(fc.property(fc.string({ unit: "binary" }), onlyDurationErrors), { numRuns: 2000 });
    const nearMiss = fc.string({ unit: fc.constantFrom(..."0123456789.+-nsuµμmh d"), maxLength: 14 });
    fc.assert(fc.property(nearMiss, onlyDurationErrors), { numRuns: 10000 });
  });
});
