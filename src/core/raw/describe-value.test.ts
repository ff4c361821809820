/** describeValue: how each kind of raw value is named in issue messages. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { describeValue } from "./describe-value.js";
import { EXACT_INT_PREFIX } from "../summary/exact-integer.js";

describe("describeValue", () => {
  const cases: { input: unknown; want: string }[] = [
    { input: "100", want: '"100"' },
    { input: 'a"b', want: '"a\\"b"' },
    { input: `${EXACT_INT_PREFIX}-18446744073709551616`, want: "-18446744073709551616" },
    { input: -1, want: "-1" },
    { input: 1.5, want: "1.5" },
    { input: 5n, want: "5" },
    { input: false, want: "false" },
    { input: null, want: "null" },
    { input: undefined, want: "nothing" },
    { input: [1], want: "a list" },
    { input: { a: 1 }, want: "an object" },
  ];
  for (const c of cases) {
    test(`${String(c.want)}`, () => assert.equal(describeValue(c.input), c.want));
  }
});
