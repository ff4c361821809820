// Property tests for quantity.ts: print/parse round trips, an exact-value oracle, and total error handling.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  QuantityError,
  addQuantity,
  cmpQuantity,
  formatQuantity,
  parseQuantity,
  quantityNanos,
  quantityValue,
  subQuantity,
  type Quantity,
  type QuantityFormat,
} from "./quantity.js";

const MAX_INT64 = (1n << 63n) - 1n;
const RUNS = { numRuns: 2000 };

/** Any quantity the parser can produce: BinarySI stays within upstream's ±(2^63-1) parse cap. */
const quantityArb: fc.Arbitrary<Quantity> = fc.oneof(
  fc.record({
    unscaled: fc.bigInt({ min: -MAX_INT64, max: MAX_INT64 }),
    scale: fc.integer({ min: -9, max: 0 }),
    format: fc.constant<QuantityFormat>("BinarySI"),
  }),
  fc.record({
    unscaled: fc.oneof(
      fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
      fc.bigInt({ min: -5000n, max: 5000n }),
    ),
    scale: fc.integer({ min: -9, max: 40 }),
    format: fc.constantFrom<QuantityFormat>("DecimalSI", "DecimalExponent"),
  }),
  fc
    .bigInt({ min: 0n, max: MAX_INT64 })
    .map((n): Quantity => ({ unscaled: n, scale: 0, format: "BinarySI" })),
);

const SUFFIXES = [
  "",
  "n",
  "u",
  "m",
  "k",
  "M",
  "G",
  "T",
  "P",
  "E",
  "Ki",
  "Mi",
  "Gi",
  "Ti",
  "Pi",
  "Ei",
] as const;
const digits = (max: number): fc.Arbitrary<string> =>
  fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: max });

/** Well-formed quantity text: sign, digits, optional fraction, one suffix or an e-exponent. */
const textArb = fc
  .record({
    sign: fc.constantFrom("", "+", "-"),
    int: digits(22),
    frac: fc.option(digits(14), { nil: undefined }),
    suffix: fc.oneof(
      fc.constantFrom(...SUFFIXES),
      fc
        .tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), fc.integer({ min: 0, max: 40 }))
        .map(([e, s, n]) => `${e}${s}${n}`),
    ),
  })
  .filter((r) => r.int.length > 0 || (r.frac !== undefined && r.frac.length > 0));

/** Independent oracle: the exact value × 10^9, rounded away from zero, BinarySI capped at 2^63-1. */
function expectedNanos(r: { sign: string; int: string; frac: string | undefined; suffix: string }): bigint {
  const frac = r.frac ?? "";
  let num = BigInt((r.int || "0") + frac) * 10n ** 9n;
  let den = 10n ** BigInt(frac.length);
  const binary = r.suffix.endsWith("i");
  if (binary) {
    num *= 2n ** BigInt(10 * ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].indexOf(r.suffix) + 10);
  } else if (/^[eE]./.test(r.suffix)) {
    const e = Number(r.suffix.slice(1));
    if (e >= 0) num *= 10n ** BigInt(e);
    else den *= 10n ** BigInt(-e);
  } else {
    const e = { "": 0, n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 }[r.suffix] ?? 0;
    if (e >= 0) num *= 10n ** BigInt(e);
    else den *= 10n ** BigInt(-e);
  }
  let q = num / den;
  if (q * den !== num) q += 1n;
  if (binary && q > MAX_INT64 * 10n ** 9n) q = MAX_INT64 * 10n ** 9n;
  return r.sign === "-" ? -q : q;
}

describe("quantity properties", () => {
  test("printing then parsing gives the same value and the same text", () => {
    fc.assert(
      fc.property(quantityArb, (q) => {
        const text = formatQuantity(q);
        const back = parseQuantity(text);
        assert.equal(cmpQuantity(back, q), 0, `${text}`);
        // Text parses as DecimalSI, so a BinarySI value printed as a plain integer may re-print in
        // DecimalSI form (upstream too: 405580705829077000 → 405580705829077k); from then on the
        // printed form is a fixed point.
        if (q.format !== "BinarySI" || back.format === "BinarySI") assert.equal(formatQuantity(back), text);
        const again = formatQuantity(back);
        assert.equal(formatQuantity(parseQuantity(again)), again);
      }),
      RUNS,
    );
  });

  test("parsed text round-trips through its printed form", () => {
    fc.assert(
      fc.property(textArb, (r) => {
        const input = `${r.sign}${r.int}${r.frac === undefined ? "" : "." + r.frac}${r.suffix}`;
        const q = parseQuantity(input);
        const text = formatQuantity(q);
        const back = parseQuantity(text);
        assert.equal(cmpQuantity(back, q), 0, `${input} -> ${text}`);
        assert.equal(formatQuantity(back), text);
      }),
      RUNS,
    );
  });

  test("parsed values equal an exact rational oracle", () => {
    fc.assert(
      fc.property(textArb, (r) => {
        const input = `${r.sign}${r.int}${r.frac === undefined ? "" : "." + r.frac}${r.suffix}`;
        assert.equal(quantityNanos(parseQuantity(input)), expectedNanos(r), input);
      }),
      RUNS,
    );
  });

  test("cmp, add, sub and Value agree with exact nano arithmetic", () => {
    fc.assert(
      fc.property(quantityArb, quantityArb, (a, b) => {
        const na = quantityNanos(a);
        const nb = quantityNanos(b);
        assert.equal(cmpQuantity(a, b), na === nb ? 0 : na > nb ? 1 : -1);
        assert.equal(quantityNanos(addQuantity(a, b)), na + nb);
        assert.equal(quantityNanos(subQuantity(a, b)), na - nb);
        const mag = na < 0n ? -na : na;
        let v = mag / 1_000_000_000n + (mag % 1_000_000_000n === 0n ? 0n : 1n);
        if (na < 0n) v = -v;
        const clamped = v > MAX_INT64 ? MAX_INT64 : v < -MAX_INT64 - 1n ? -MAX_INT64 - 1n : v;
        assert.equal(quantityValue(a), clamped);
      }),
      RUNS,
    );
  });

  const onlyQuantityErrors = (s: string): void => {
    try {
      const q = parseQuantity(s);
      assert.equal(typeof formatQuantity(q), "string");
    } catch (e) {
      if (!(e instanceof QuantityError)) throw e;
      assert.equal(e.input, s);
    }
  };
  const nearMiss = fc.string({ unit: fc.constantFrom(..."0123456789.+-eEinumkKMGTPib %µ_x"), maxLength: 16 });

  test("any string parses or throws a QuantityError, never anything else", () => {
    fc.assert(fc.property(fc.string(), onlyQuantityErrors), RUNS);
    fc.assert(fc.property(fc.string({ unit: "binary" }), onlyQuantityErrors), RUNS);
    fc.assert(fc.property(fc.string({ unit: "grapheme" }), onlyQuantityErrors), RUNS);
    fc.assert(fc.property(nearMiss, onlyQuantityErrors), { numRuns: 10000 });
  });
});
