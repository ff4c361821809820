// Table-driven tests for quantity.ts against apimachinery's quantity_test.go / golden behaviour.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  QUANTITY_FORMAT_ERROR,
  QUANTITY_NUMERIC_ERROR,
  QUANTITY_SUFFIX_ERROR,
  QuantityError,
  addQuantity,
  cmpQuantity,
  formatQuantity,
  isQuantityZero,
  parseQuantity,
  quantityFromInt,
  quantityFromNanos,
  quantityNanos,
  quantitySign,
  quantityValue,
  subQuantity,
  type Quantity,
  type QuantityFormat,
} from "./quantity.js";

const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
const nanos = (text: string): bigint => quantityNanos(parseQuantity(text));

describe("parseQuantity: exact value (in nanos) and format", () => {
  const cases: Array<[input: string, nanos: bigint, format: QuantityFormat]> = [
    ["0", 0n, "DecimalSI"],
    ["0n", 0n, "DecimalSI"],
    ["0Ki", 0n, "BinarySI"],
    ["0Mi", 0n, "BinarySI"],
    ["0T", 0n, "DecimalSI"],
    ["1", 1_000_000_000n, "DecimalSI"],
    ["1Ki", 1024n * 10n ** 9n, "BinarySI"],
    ["7Mi", 7n * 2n ** 20n * 10n ** 9n, "BinarySI"],
    ["3Ei", 3n * 2n ** 60n * 10n ** 9n, "BinarySI"],
    ["5n", 5n, "DecimalSI"],
    ["4u", 4_000n, "DecimalSI"],
    ["3m", 3_000_000n, "DecimalSI"],
    ["8k", 8n * 10n ** 12n, "DecimalSI"],
    ["300T", 3n * 10n ** 23n, "DecimalSI"],
    ["1E", 10n ** 27n, "DecimalSI"],
    ["12E", 12n * 10n ** 27n, "DecimalSI"],
    ["1E-3", 10n ** 6n, "DecimalExponent"],
    ["1e3", 10n ** 12n, "DecimalExponent"],
    ["1.3E+6", 13n * 10n ** 14n, "DecimalExponent"],
    ["100.035k", 100035n * 10n ** 9n, "DecimalSI"],
    ["0.0005k", 5n * 10n ** 8n, "DecimalSI"],
    ["0.5e-2", 5n * 10n ** 6n, "DecimalExponent"],
    ["6.987654321G", 6987654321n * 10n ** 9n, "DecimalSI"],
    [".001", 10n ** 6n, "DecimalSI"],
    [".0001k", 10n ** 8n, "DecimalSI"],
    ["1.", 10n ** 9n, "DecimalSI"],
    ["1.G", 10n ** 18n, "DecimalSI"],
    ["-5", -5n * 10n ** 9n, "DecimalSI"],
    ["+5", 5n * 10n ** 9n, "DecimalSI"],
    // Rounded up (away from zero) to 1n.
    ["3.001n", 4n, "DecimalSI"],
    ["1.1E-9", 2n, "DecimalExponent"],
    ["0.0000000005", 1n, "DecimalSI"],
    ["0.00000012345", 124n, "DecimalSI"],
    ["-0.00000012345", -124n, "DecimalSI"],
    ["1e-100", 1n, "DecimalExponent"],
    ["-1e-2147483647", -1n, "DecimalExponent"],
    ["15e-10", 2n, "DecimalExponent"],
    ["0e-2147483647", 0n, "DecimalExponent"],
    // BinarySI below 1 flips to DecimalSI; BinarySI is capped at 2^63-1, DecimalSI never is.
    [".000000000001Ki", 2n, "DecimalSI"],
    ["9Ei", MAX_INT64 * 10n ** 9n, "BinarySI"],
    ["-20Ei", -MAX_INT64 * 10n ** 9n, "BinarySI"],
    ["9223372036854775807Ki", MAX_INT64 * 10n ** 9n, "BinarySI"],
    ["18446744073709551616", 2n ** 64n * 10n ** 9n, "DecimalSI"],
    ["1e30", 10n ** 39n, "DecimalExponent"],
    // Fractional binary quantities are exact.
    ["100.035Ki", 10243584n * 10n ** 7n, "BinarySI"],
    ["0.5Mi", 524288n * 10n ** 9n, "BinarySI"],
    ["0.025Ti", 274877906944n * 10n ** 8n, "BinarySI"],
    // The scanner is more permissive than the regular expression in the error text.
    [".", 0n, "DecimalSI"],
    ["-", 0n, "DecimalSI"],
    ["Ki", 0n, "BinarySI"],
  ];
  for (const [input, want, format] of cases) {
    test(input, () => {
      const q = parseQuantity(input);
      assert.equal(quantityNanos(q), want);
      assert.equal(q.format, format);
    });
  }
});

describe("parseQuantity: errors carry upstream's exact message", () => {
  const cases: Array<[input: string, message: string]> = [
    ["", QUANTITY_FORMAT_ERROR],
    [" 1", QUANTITY_FORMAT_ERROR],
    ["1 ", QUANTITY_FORMAT_ERROR],
    ["aoeu", QUANTITY_FORMAT_ERROR],
    ["1.1.M", QUANTITY_FORMAT_ERROR],
    ["1+1.0M", QUANTITY_FORMAT_ERROR],
    ["0.1am", QUANTITY_FORMAT_ERROR],
    ["1Kb", QUANTITY_FORMAT_ERROR], // `b` is outside the suffix alphabet, so the scanner rejects it
    ["10%", QUANTITY_FORMAT_ERROR],
    ["1µ", QUANTITY_FORMAT_ERROR],
    ["1K", QUANTITY_SUFFIX_ERROR],
    ["1mi", QUANTITY_SUFFIX_ERROR],
    ["0.1mi", QUANTITY_SUFFIX_ERROR],
    ["1e", QUANTITY_SUFFIX_ERROR],
    [".5i", QUANTITY_SUFFIX_ERROR],
    ["-3.01i", QUANTITY_SUFFIX_ERROR],
    ["-3.01e-", QUANTITY_SUFFIX_ERROR],
    ["1e+", QUANTITY_SUFFIX_ERROR],
    ["1eKi3", QUANTITY_SUFFIX_ERROR],
    ["1Kii", QUANTITY_SUFFIX_ERROR],
    ["1e2147483648", QUANTITY_SUFFIX_ERROR], // exponents must fit [-MaxInt32, MaxInt32]
    ["1e-2147483648", QUANTITY_SUFFIX_ERROR],
    ["1e4294967297", QUANTITY_SUFFIX_ERROR],
    ["Ei", QUANTITY_NUMERIC_ERROR], // no digits reach upstream's inf.Dec path
    ["-Pi", QUANTITY_NUMERIC_ERROR],
    [".Ei", QUANTITY_NUMERIC_ERROR],
    ["e-10", QUANTITY_NUMERIC_ERROR],
  ];
  for (const [input, message] of cases) {
    test(JSON.stringify(input), () => {
      assert.throws(
        () => parseQuantity(input),
        (e: unknown) =>
          e instanceof QuantityError && e.message === message && e.input === input && e.code === "quantity",
      );
    });
  }
  test("the format error quotes upstream's regular expression verbatim", () => {
    assert.equal(
      QUANTITY_FORMAT_ERROR,
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });
});

describe("formatQuantity of parsed text (String())", () => {
  const cases: Array<[input: string, want: string]> = [
    ["1Ki", "1Ki"],
    ["1Gi", "1Gi"],
    ["1024Mi", "1Gi"],
    ["1000M", "1G"],
    ["1.5Gi", "1536Mi"],
    ["0.5Ki", "512"],
    ["0.1Ki", "102400m"],
    ["100.035Ki", "102435840m"],
    ["858993472", "858993472"],
    ["92148Ki", "92148Ki"],
    ["300Mi", "300Mi"],
    ["307200Ki", "300Mi"],
    ["5000", "5k"],
    ["49000", "49k"],
    ["123456", "123456"],
    ["1000000", "1M"],
    ["500m", "500m"],
    ["0.5", "500m"],
    ["0.1", "100m"],
    [".5", "500m"],
    ["1.5", "1500m"],
    ["100.5", "100500m"],
    ["1.08", "1080m"],
    ["1080000000n", "1080m"],
    ["1000u", "1m"],
    ["0.001T", "1G"],
    ["1e3", "1e3"],
    ["1E3", "1E3"], // kept verbatim: upstream's canonical test is textual
    [".001e12", "1e9"],
    ["0.001e0", "1e-3"],
    ["1000e-12", "1e-9"],
    ["1e-100", "1e-9"],
    ["1E", "1E"],
    ["100E", "100E"],
    ["1000E", "1e21"], // beyond E: exponent fallback (kubernetes#140459)
    ["1e100", "10e99"],
    ["8Ei", "9223372036854775807"],
    ["-20Ei", "-9223372036854775807"],
    ["-9.5Gi", "-9728Mi"],
    ["-9.5000000001Gi", "-10200547328107374183n"],
    [".000000001Ki", "1024n"],
    [".000000000001Ki", "2n"],
    ["0.000000000000001", "1n"],
    ["9223372036854775808", "9223372036854775808"],
    ["-5", "-5"],
    ["+5", "+5"], // upstream quirk: the sign survives in the remembered text
    ["+1Ki", "+1Ki"],
    ["01", "01"],
    ["1.", "1."],
    ["1.441", "1.441"], // kubernetes#138165: 3n fractional digits print verbatim
    ["1.000001", "1.000001"],
    ["0", "0"],
    ["00", "0"],
    ["-0", "0"],
    ["0Mi", "0"],
    ["0.0", "0"],
  ];
  for (const [input, want] of cases) {
    test(`${input} -> ${want}`, () => assert.equal(formatQuantity(parseQuantity(input)), want));
  }
  test("negating a parsed value prefixes a minus sign", () => {
    for (const input of ["1Ki", "1024Mi", "1000M", ".001Ki", ".000000000001Ki"]) {
      const want = formatQuantity(parseQuantity(input));
      assert.equal(formatQuantity(parseQuantity("-" + input)), "-" + want);
    }
  });
});

describe("formatQuantity of computed values", () => {
  const cases: Array<[q: Quantity, want: string]> = [
    [quantityFromInt(2n ** 30n, "BinarySI"), "1Gi"],
    [quantityFromInt(8589934592n, "BinarySI"), "8Gi"],
    [quantityFromInt(104857600n, "BinarySI"), "100Mi"],
    [quantityFromInt(1610612736n, "BinarySI"), "1536Mi"],
    [quantityFromInt(858993472n, "BinarySI"), "858993472"],
    [quantityFromInt(1001n * 2n ** 30n, "BinarySI"), "1001Gi"],
    [quantityFromInt(1025n, "BinarySI"), "1025"],
    [quantityFromInt(2000n, "BinarySI"), "2000"],
    [quantityFromInt(-2000n, "BinarySI"), "-2000"],
    [quantityFromInt(1000n, "BinarySI"), "1k"], // below 1024: printed as DecimalSI
    [quantityFromInt(5n, "BinarySI"), "5"],
    [quantityFromInt(50000n, "BinarySI"), "50000"],
    [quantityFromInt(2n ** 62n, "BinarySI"), "4Ei"],
    [quantityFromInt(2n ** 70n, "BinarySI"), "1180591620717411303424"], // past Ei
    [{ unscaled: 1n, scale: 70, format: "BinarySI" }, "10e69"],
    [{ unscaled: 1n, scale: 72, format: "BinarySI" }, "1e72"],
    [{ unscaled: 1234567n, scale: -3, format: "BinarySI" }, "1234567m"],
    [{ unscaled: 500n, scale: -3, format: "BinarySI" }, "500m"],
    [quantityFromInt(5000n, "DecimalSI"), "5k"],
    [quantityFromInt(49000n, "DecimalSI"), "49k"],
    [quantityFromInt(123456n, "DecimalSI"), "123456"],
    [quantityFromInt(3000n, "DecimalSI"), "3k"],
    [{ unscaled: 1n, scale: 21, format: "DecimalSI" }, "1e21"],
    [{ unscaled: 5n, scale: 21, format: "DecimalSI" }, "5e21"],
    [{ unscaled: 1n, scale: 24, format: "DecimalSI" }, "1e24"],
    [{ unscaled: 1234567n, scale: 6, format: "DecimalSI" }, "1234567M"],
    [{ unscaled: 1n, scale: -12, format: "DecimalSI" }, "1e-12"],
    [{ unscaled: 1n, scale: -10, format: "DecimalSI" }, "100e-12"],
    [{ unscaled: 108n, scale: -8, format: "DecimalSI" }, "1080n"],
    [{ unscaled: -901n, scale: -2, format: "DecimalSI" }, "-9010m"],
    [{ unscaled: 80n, scale: -3, format: "DecimalExponent" }, "80e-3"],
    [{ unscaled: 300n, scale: 6, format: "DecimalExponent" }, "300e6"],
    [quantityFromInt(1500n, "DecimalExponent"), "1500"],
    [quantityFromInt(0n, "DecimalExponent"), "0"],
    [quantityFromNanos(1_500_000_000n, "DecimalSI"), "1500m"],
    [quantityFromNanos(2n ** 30n * 10n ** 9n, "BinarySI"), "1Gi"],
    [quantityFromInt(MIN_INT64, "DecimalSI"), "-9223372036854775808"],
  ];
  for (const [q, want] of cases) {
    test(`${q.unscaled}e${q.scale} ${q.format} -> ${want}`, () => assert.equal(formatQuantity(q), want));
  }
});

describe("quantityValue (Value(): away from zero, saturated to int64)", () => {
  const cases: Array<[input: string, want: bigint]> = [
    ["500m", 1n],
    ["1", 1n],
    ["1001m", 2n],
    ["-1500m", -2n],
    ["1n", 1n],
    ["1.5Gi", 1610612736n],
    ["8Ei", MAX_INT64],
    ["1e30", MAX_INT64],
    ["-1e30", MIN_INT64],
    ["9223372036854775808", MAX_INT64],
    ["1e-100", 1n],
    ["0", 0n],
  ];
  for (const [input, want] of cases) {
    test(`${input} -> ${want}`, () => assert.equal(quantityValue(parseQuantity(input)), want));
  }
});

describe("cmpQuantity is exact", () => {
  const cases: Array<[a: string, b: string, want: -1 | 0 | 1]> = [
    ["0", "0", 0],
    ["0", "0Ki", 0],
    ["100m", "50m", 1],
    ["50m", "100m", -1],
    ["10000T", "100Gi", 1],
    ["1Gi", "1073741824", 0],
    ["1Gi", "1073741825", -1],
    ["1G", "1Gi", -1],
    ["-1", "1n", -1],
    ["-1n", "-2n", 1],
    ["1e2000000000", "1e1999999999", 1],
    ["-1e2000000000", "-1e1999999999", -1],
    ["1e2000000000", "10e1999999999", 0],
    ["1e-100", "1n", 0],
    ["9223372036854775807", "9223372036854775808", -1],
    ["8Ei", "9223372036854775807", 0],
  ];
  for (const [a, b, want] of cases) {
    test(`${a} vs ${b}`, () => {
      assert.equal(cmpQuantity(parseQuantity(a), parseQuantity(b)), want);
      assert.equal(cmpQuantity(parseQuantity(b), parseQuantity(a)), want === 0 ? 0 : -want);
    });
  }
});

describe("arithmetic", () => {
  test("add is exact and keeps the receiver's format, dropping remembered text", () => {
    const sum = addQuantity(parseQuantity("1Gi"), parseQuantity("512Mi"));
    assert.equal(sum.format, "BinarySI");
    assert.equal(sum.text, undefined);
    assert.equal(formatQuantity(sum), "1536Mi");
    assert.equal(formatQuantity(addQuantity(parseQuantity("1k"), parseQuantity("1Ki"))), "2024");
    assert.equal(formatQuantity(addQuantity(parseQuantity("1.441"), parseQuantity("0"))), "1441m");
    assert.equal(
      nanos("1n") + nanos("1E"),
      quantityNanos(addQuantity(parseQuantity("1n"), parseQuantity("1E"))),
    );
  });
  test("a zero receiver takes the other operand's format (upstream Add/Sub)", () => {
    for (const text of ["100m", "1Gi"]) {
      const v = parseQuantity(text);
      assert.equal(formatQuantity(addQuantity(v, parseQuantity("0"))), text);
      assert.equal(formatQuantity(addQuantity(parseQuantity("0"), v)), text);
      assert.equal(formatQuantity(subQuantity(v, parseQuantity("0"))), text);
      assert.equal(formatQuantity(subQuantity(parseQuantity("0"), v)), "-" + text);
    }
  });
  test("sub is exact", () => {
    const d = subQuantity(parseQuantity("10Gi"), parseQuantity("9.5Gi"));
    assert.equal(formatQuantity(d), "512Mi");
    assert.equal(quantitySign(subQuantity(parseQuantity("1n"), parseQuantity("2n"))), -1);
  });
  test("sign and zero", () => {
    assert.equal(quantitySign(parseQuantity("-1n")), -1);
    assert.equal(quantitySign(parseQuantity("0Gi")), 0);
    assert.equal(quantitySign(parseQuantity("1e-100")), 1);
    assert.equal(isQuantityZero(parseQuantity("-0.0")), true);
    assert.equal(isQuantityZero(parseQuantity("1n")), false);
  });
  test("nanos round trip", () => {
    for (const n of [0n, 1n, -1n, 1_500_000_000n, 2n ** 90n]) {
      assert.equal(quantityNanos(quantityFromNanos(n, "DecimalSI")), n);
    }
  });
});
