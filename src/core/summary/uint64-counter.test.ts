import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { EXACT_INT_PREFIX } from "./exact-integer.js";
import { counterProblem, toCounter, UINT64_MAX } from "./uint64-counter.js";

const EXPECTED = "expected a non-negative integer (uint64), got";

describe("counterProblem / toCounter", () => {
  const valid: { name: string; input: unknown; want: bigint }[] = [
    { name: "zero", input: 0, want: 0n },
    { name: "number", input: 7688695808, want: 7688695808n },
    { name: "largest safe integer", input: Number.MAX_SAFE_INTEGER, want: 9007199254740991n },
    { name: "bigint (YAML reader)", input: 18446744073709551615n, want: UINT64_MAX },
    { name: "sentinel (JSON reader)", input: `${EXACT_INT_PREFIX}18446744073709551615`, want: UINT64_MAX },
    { name: "sentinel within safe range", input: `${EXACT_INT_PREFIX}12`, want: 12n },
  ];
  for (const c of valid) {
    test(`accepts ${c.name}`, () => {
      assert.equal(counterProblem(c.input), undefined);
      assert.equal(toCounter(c.input), c.want);
    });
  }

  const invalid: { name: string; input: unknown; want: string }[] = [
    { name: "digit string", input: "100", want: `${EXPECTED} "100"` },
    { name: "negative number", input: -1, want: `${EXPECTED} -1` },
    { name: "fraction", input: 1.5, want: `${EXPECTED} 1.5` },
    { name: "NaN", input: Number.NaN, want: `${EXPECTED} NaN` },
    { name: "boolean", input: true, want: `${EXPECTED} true` },
    { name: "object", input: { value: 1 }, want: `${EXPECTED} an object` },
    { name: "list", input: [1], want: `${EXPECTED} a list` },
    {
      name: "rounded number beyond 2^53",
      input: Number("18446744073709551615"), // what plain JSON.parse makes of uint64 max
      want: `${EXPECTED} 18446744073709552000, which is beyond 2^53 and was rounded when read`,
    },
    { name: "negative bigint", input: -1n, want: `${EXPECTED} -1` },
    { name: "bigint beyond uint64", input: UINT64_MAX + 1n, want: `${EXPECTED} 18446744073709551616` },
    {
      name: "negative sentinel",
      input: `${EXACT_INT_PREFIX}-99999999999999999`,
      want: `${EXPECTED} -99999999999999999`,
    },
    {
      name: "fractional sentinel",
      input: `${EXACT_INT_PREFIX}12345678901234567.5`,
      want: `${EXPECTED} 12345678901234567.5`,
    },
    {
      name: "sentinel beyond uint64",
      input: `${EXACT_INT_PREFIX}18446744073709551616`,
      want: `${EXPECTED} 18446744073709551616`,
    },
  ];
  for (const c of invalid) {
    test(`rejects ${c.name}`, () => assert.equal(counterProblem(c.input), c.want));
  }

  test("toCounter never throws on values a validator would reject", () => {
    for (const c of [1.5, -0.5, Number.POSITIVE_INFINITY, "100", {}, null])
      assert.equal(toCounter(c), undefined);
  });
});
