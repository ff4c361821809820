// Go strconv parity for the kubelet's bool and int32 flags.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { goQuote } from "../go-quote.js";
import { parseGoBool, parseGoInt } from "./go-strconv.js";

describe("parseGoBool", () => {
  const cases: [string, boolean | string][] = [
    ["1", true],
    ["t", true],
    ["T", true],
    ["TRUE", true],
    ["true", true],
    ["True", true],
    ["0", false],
    ["f", false],
    ["F", false],
    ["FALSE", false],
    ["false", false],
    ["False", false],
    ["yes", 'strconv.ParseBool: parsing "yes": invalid syntax'],
    ["tRUE", 'strconv.ParseBool: parsing "tRUE": invalid syntax'],
    ["", 'strconv.ParseBool: parsing "": invalid syntax'],
    [" true", 'strconv.ParseBool: parsing " true": invalid syntax'],
  ];
  for (const [input, want] of cases) {
    test(JSON.stringify(input), () => {
      const got = parseGoBool(input);
      if (typeof want === "boolean") assert.deepEqual(got, { ok: true, value: want });
      else assert.deepEqual(got, { ok: false, message: want });
    });
  }
});

describe("parseGoInt (base 0, 32 bits)", () => {
  const syntax = (s: string): string => `strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax`;
  const range = (s: string): string => `strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range`;
  const cases: [string, bigint | string][] = [
    ["0", 0n],
    ["60", 60n],
    ["+60", 60n],
    ["-1", -1n],
    ["-0", 0n],
    ["0x1f", 31n],
    ["0X1F", 31n],
    ["0o17", 15n],
    ["017", 15n],
    ["0b101", 5n],
    ["1_000", 1000n],
    ["0x_1f", 31n],
    ["0_1", 1n],
    ["2147483647", 2147483647n],
    ["-2147483648", -2147483648n],
    ["2147483648", range("2147483648")],
    ["-2147483649", range("-2147483649")],
    ["4294967296", range("4294967296")],
    ["99999999999x", range("99999999999x")],
    ["", syntax("")],
    ["-", syntax("-")],
    ["08", syntax("08")],
    ["0x", syntax("0x")],
    ["1.5", syntax("1.5")],
    ["1e2", syntax("1e2")],
    [" 1", syntax(" 1")],
    ["_1", syntax("_1")],
    ["1_", syntax("1_")],
    ["1__0", syntax("1__0")],
    ["60s", syntax("60s")],
  ];
  for (const [input, want] of cases) {
    test(JSON.stringify(input), () => {
      const got = parseGoInt(input, 32);
      if (typeof want === "bigint") assert.deepEqual(got, { ok: true, value: want });
      else assert.deepEqual(got, { ok: false, message: want });
    });
  }
  test("64-bit range", () => {
    assert.deepEqual(parseGoInt("2147483648", 64), { ok: true, value: 2147483648n });
    assert.deepEqual(parseGoInt("9223372036854775808", 64), {
      ok: false,
      message: range("9223372036854775808"),
    });
  });
});

describe("goQuote", () => {
  const cases: [string, string][] = [
    ["abc", '"abc"'],
    ['a"b\\c', '"a\\"b\\\\c"'],
    ["tab\there\n", '"tab\\there\\n"'],
    ["\u0001\u007f", '"\\x01\\x7f"'],
    ["µs é", '"µs é"'],
    ["\u200b", '"\\u200b"'],
    ["\u{1F600}", '"\u{1F600}"'],
  ];
  for (const [input, want] of cases) test(JSON.stringify(input), () => assert.equal(goQuote(input), want));
});
