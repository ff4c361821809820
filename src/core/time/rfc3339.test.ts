/** parseRfc3339 against Go's decoder, and the RFC3339Nano formatting read back through it. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { formatRfc3339Ms, formatRfc3339Nano, GO_ZERO_TIME_MS, parseRfc3339, Rfc3339Memo } from "./rfc3339.js";

/** Epoch ms for a UTC calendar date, valid for years 0–99 too (Date.UTC maps those to 1900+). */
function utc(year: number, month: number, day: number, h = 0, m = 0, s = 0): number {
  const d = new Date(Date.UTC(2000, month - 1, day, h, m, s));
  d.setUTCFullYear(year);
  return d.getTime();
}

describe("parseRfc3339", () => {
  const valid: { input: string; want: number | "zero" }[] = [
    { input: "1970-01-01T00:00:00Z", want: 0 },
    { input: "2026-06-26T10:14:35Z", want: utc(2026, 6, 26, 10, 14, 35) },
    { input: "2017-04-20T08:06:41Z", want: utc(2017, 4, 20, 8, 6, 41) },
    // Fractions keep microseconds; digits beyond are dropped (Go keeps ns, epoch ms keeps µs).
    { input: "2025-01-01T00:00:00.5Z", want: utc(2025, 1, 1) + 500 },
    { input: "2025-01-01T00:00:00.123456789Z", want: utc(2025, 1, 1) + 123.456 },
    { input: "2025-01-01T00:00:00.000001Z", want: utc(2025, 1, 1) + 0.001 },
    { input: "2025-01-01T00:00:00.1234567891234Z", want: utc(2025, 1, 1) + 123.456 },
    // Offsets move the instant.
    { input: "2025-01-01T02:00:00+02:00", want: utc(2025, 1, 1) },
    { input: "2024-12-31T19:30:00-04:30", want: utc(2025, 1, 1) },
    { input: "2024-02-29T12:00:00Z", want: utc(2024, 2, 29, 12) },
    { input: "2000-02-29T00:00:00Z", want: utc(2000, 2, 29) },
    { input: "0050-06-01T00:00:00Z", want: utc(50, 6, 1) },
    { input: "9999-12-31T23:59:59Z", want: utc(9999, 12, 31, 23, 59, 59) },
    // Go's zero time, however spelled (IsZero compares instants).
    { input: "0001-01-01T00:00:00Z", want: "zero" },
    { input: "0001-01-01T01:00:00+01:00", want: "zero" },
    { input: "0001-01-01T00:00:00.000Z", want: "zero" },
    { input: "0001-01-01T00:00:00.000000001Z", want: GO_ZERO_TIME_MS },
  ];
  for (const c of valid) {
    test(`${c.input} → ${String(c.want)}`, () => assert.equal(parseRfc3339(c.input), c.want));
  }

  const invalid = [
    "",
    "yesterday",
    "2025-01-01",
    "2025-01-01 00:00:00Z",
    "2025-01-01t00:00:00Z",
    "2025-01-01T00:00:00z",
    "2025-01-01T00:00:00",
    "2025-01-01T00:00:00.Z",
    "2025-01-01T00:00:00,5Z",
    "2025-01-01T00:00:00+0200",
    "2025-01-01T00:00:00+24:00",
    "2025-01-01T00:00:00+02:60",
    "2025-01-01T00:00:00Zjunk",
    "2025-13-01T00:00:00Z",
    "2025-00-01T00:00:00Z",
    "2025-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2025-04-31T00:00:00Z",
    "2025-01-01T24:00:00Z",
    "2025-01-01T00:60:00Z",
    "2025-01-01T23:59:60Z",
    "+2025-01-01T00:00:00Z",
    "２025-01-01T00:00:00Z",
  ];
  for (const input of invalid) {
    test(`rejects ${JSON.stringify(input)}`, () => assert.equal(parseRfc3339(input), "invalid"));
  }

  test("GO_ZERO_TIME_MS is 0001-01-01T00:00:00Z", () => assert.equal(GO_ZERO_TIME_MS, utc(1, 1, 1)));

  test("agrees with Date for every millisecond instant it can print", () => {
    fc.assert(
      fc.property(fc.integer({ min: utc(1, 1, 2), max: utc(9999, 12, 31) }), (ms) => {
        const iso = new Date(ms).toISOString();
        if (iso.startsWith("+") || iso.startsWith("-")) return;
        assert.equal(parseRfc3339(iso), ms);
      }),
    );
  });
});

describe("Rfc3339Memo", () => {
  test("returns what parseRfc3339 returns, for repeated and alternating texts", () => {
    const memo = new Rfc3339Memo();
    const texts = ["2025-01-01T00:00:00Z", "bad", "0001-01-01T00:00:00Z", "2025-01-01T00:00:00Z", "bad"];
    for (const text of [...texts, ...texts.toReversed()]) assert.equal(memo.parse(text), parseRfc3339(text));
  });
});

// Timestamps as pods carry them (metadata.creationTimestamp): undefined means "invalid".
const podCases: { text: string; want: number | undefined }[] = [
  { text: "1970-01-01T00:00:00Z", want: 0 },
  { text: "2026-06-26T10:12:51Z", want: Date.UTC(2026, 5, 26, 10, 12, 51) },
  { text: "2026-06-26T10:12:51.406244668Z", want: Date.UTC(2026, 5, 26, 10, 12, 51) + 406.244 },
  { text: "2026-06-26T10:12:51.5Z", want: Date.UTC(2026, 5, 26, 10, 12, 51) + 500 },
  { text: "2026-06-26T12:12:51+02:00", want: Date.UTC(2026, 5, 26, 10, 12, 51) },
  { text: "2026-06-26T05:42:51-04:30", want: Date.UTC(2026, 5, 26, 10, 12, 51) },
  { text: "2024-02-29T00:00:00Z", want: Date.UTC(2024, 1, 29) },
  { text: "1969-12-31T23:59:59Z", want: -1000 },
  { text: "0001-01-01T00:00:00Z", want: -62135596800000 },
  { text: "2023-02-29T00:00:00Z", want: undefined },
  { text: "2026-13-01T00:00:00Z", want: undefined },
  { text: "2026-06-26T24:00:00Z", want: undefined },
  { text: "2026-06-26T10:12:60Z", want: undefined },
  { text: "2026-06-26T10:12:51+24:00", want: undefined },
  { text: "2026-06-26 10:12:51Z", want: undefined },
  { text: "2026-06-26T10:12:51", want: undefined },
  { text: "2026-06-26", want: undefined },
  { text: "", want: undefined },
];

for (const c of podCases) {
  test(`parseRfc3339(${JSON.stringify(c.text)}) as a pod timestamp`, () => {
    const r = parseRfc3339(c.text);
    const got = r === "invalid" ? undefined : r === "zero" ? GO_ZERO_TIME_MS : r;
    if (c.want === undefined || got === undefined) assert.equal(got, c.want);
    else assert.ok(Math.abs(got - c.want) < 1e-6, `${got} != ${c.want}`);
  });
}

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

  test("agrees with a plain Date-based formatting for any instant in years 0–9999", () => {
    const plain = (ns: bigint): string => {
      const s = ns / 1_000_000_000n - (ns % 1_000_000_000n < 0n ? 1n : 0n);
      const f = ns - s * 1_000_000_000n;
      const base = new Date(Number(s) * 1000).toISOString().slice(0, 19);
      return f === 0n ? `${base}Z` : `${base}.${f.toString().padStart(9, "0").replace(/0+$/, "")}Z`;
    };
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: -62_167_219_199n * 10n ** 9n, max: 253_402_300_798n * 10n ** 9n }), {
          minLength: 1,
          maxLength: 8,
        }),
        (xs) => {
          for (const ns of xs.flatMap((x) => [x, x + 1n, x + 999_999_999n, x - 1n]))
            assert.equal(formatRfc3339Nano(ns), plain(ns));
        },
      ),
    );
    // Calendar edges: leap days (2000 is one, 1900 and 2100 are not), year and era ends, year 0.
    for (const iso of [
      "2024-02-29T23:59:59Z",
      "2000-02-29T00:00:00Z",
      "1900-03-01T00:00:00Z",
      "2100-02-28T23:59:59Z",
      "1999-12-31T23:59:59Z",
      "1969-12-31T23:59:59Z",
      "0000-01-01T00:00:00Z",
      "9999-12-31T23:59:59Z",
    ]) {
      const seconds = BigInt(new Date(iso).getTime() / 1000);
      for (const ns of [seconds * 1_000_000_000n, seconds * 1_000_000_000n + 500n])
        assert.equal(formatRfc3339Nano(ns), plain(ns), iso);
    }
  });

  test("parseRfc3339 reads it back to the microsecond", () => {
    const back = parseRfc3339(formatRfc3339Nano(1_782_468_875_123_456_789n));
    assert.equal(typeof back, "number");
    assert.ok(Math.abs((back as number) - 1_782_468_875_123.456) < 0.001, String(back));
  });
});

describe("formatRfc3339Ms", () => {
  test("milliseconds, and microseconds when present", () => {
    assert.equal(formatRfc3339Ms(1_782_468_875_000), "2026-06-26T10:14:35Z");
    assert.equal(formatRfc3339Ms(1_782_468_875_250), "2026-06-26T10:14:35.25Z");
    assert.equal(formatRfc3339Ms(1_782_468_875_000.5), "2026-06-26T10:14:35.0005Z");
    assert.equal(formatRfc3339Ms(1_782_468_875_123.456), "2026-06-26T10:14:35.123456Z");
  });

  test("rounding noise below a microsecond does not show", () => {
    // 123.456 ms past the second is not exactly representable; the digits past µs would be noise.
    assert.equal(formatRfc3339Ms(1_782_468_875_000 + 123.456), "2026-06-26T10:14:35.123456Z");
    // A fraction that rounds up to the next millisecond carries into it.
    assert.equal(formatRfc3339Ms(1_782_468_875_000 + 0.9996), "2026-06-26T10:14:35.001Z");
  });

  test("round-trips every microsecond time stamp parseRfc3339 returns", () => {
    fc.assert(
      fc.property(
        // The last millisecond of 9999 is left out: near 2.5e14 a double's spacing is 1/32 ms, so
        // 253402300799999 + 0.985 rounds up into the year 10000, which RFC 3339 cannot write.
        fc.integer({ min: 0, max: 253_402_300_799_998 }),
        fc.integer({ min: 0, max: 999 }),
        (ms, us) => {
          const text = formatRfc3339Ms(ms + us / 1000);
          assert.equal(formatRfc3339Ms(parseRfc3339(text) as number), text);
        },
      ),
    );
  });
});
