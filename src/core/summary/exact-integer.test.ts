import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { EXACT_INT_PREFIX, exactInteger } from "./exact-integer.js";

describe("exactInteger", () => {
  const cases: { name: string; input: unknown; want: bigint | undefined }[] = [
    { name: "safe integer number", input: 42, want: 42n },
    { name: "zero", input: 0, want: 0n },
    { name: "negative safe integer", input: -7, want: -7n },
    { name: "largest safe integer", input: Number.MAX_SAFE_INTEGER, want: 9007199254740991n },
    { name: "unsafe number (digits already lost)", input: 2 ** 64, want: undefined },
    { name: "fraction", input: 1.5, want: undefined },
    { name: "NaN", input: Number.NaN, want: undefined },
    { name: "bigint", input: 18446744073709551615n, want: 18446744073709551615n },
    {
      name: "sentinel uint64 max",
      input: `${EXACT_INT_PREFIX}18446744073709551615`,
      want: 18446744073709551615n,
    },
    { name: "sentinel negative", input: `${EXACT_INT_PREFIX}-99999999999999999`, want: -99999999999999999n },
    { name: "sentinel fraction", input: `${EXACT_INT_PREFIX}12345678901234567.5`, want: undefined },
    { name: "sentinel exponent", input: `${EXACT_INT_PREFIX}12345678901234567e3`, want: undefined },
    { name: "sentinel without digits", input: EXACT_INT_PREFIX, want: undefined },
    { name: "plain digit string", input: "100", want: undefined },
    { name: "boolean", input: true, want: undefined },
    { name: "null", input: null, want: undefined },
    { name: "object", input: { v: 1 }, want: undefined },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(exactInteger(c.input), c.want));
  }
});
