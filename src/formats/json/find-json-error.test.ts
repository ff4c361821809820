import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { findJsonErrorOffset } from "./find-json-error.js";

/** The offset V8 reports for `text`, when its message carries one. */
function v8Offset(text: string): number | undefined {
  try {
    JSON.parse(text);
  } catch (error) {
    const m = / at position (\d+)/.exec((error as Error).message);
    return m?.[1] === undefined ? undefined : Number(m[1]);
  }
  return undefined;
}

describe("findJsonErrorOffset", () => {
  const cases: { text: string; want: number | undefined }[] = [
    { text: '{"a":[1,2.5e-3,true,false,null,"x\\u00e9\\n"]}', want: undefined },
    { text: "  [ ]  ", want: undefined },
    { text: "", want: 0 },
    { text: "   ", want: 3 },
    { text: '{"a":}', want: 5 },
    { text: '{"a" 1}', want: 5 },
    { text: "{'a':1}", want: 1 },
    { text: "[1,]", want: 3 },
    { text: "[1 2]", want: 3 },
    { text: "[1}", want: 2 },
    { text: '{"a":1]', want: 6 },
    { text: "[01]", want: 2 },
    { text: "[-]", want: 2 },
    { text: "[1.]", want: 3 },
    { text: "[1e]", want: 3 },
    { text: "[tru]", want: 4 },
    { text: "nul", want: 3 },
    { text: '"ab', want: 3 },
    { text: '"a\\qb"', want: 3 },
    { text: '"a\\u12G4"', want: 6 },
    { text: '"a\nb"', want: 2 },
    { text: "[1] x", want: 4 },
    { text: "\u0000", want: 0 },
    { text: "[".repeat(100_000), want: 100_000 },
  ];
  for (const c of cases) {
    test(`${JSON.stringify(c.text.slice(0, 20))} → ${String(c.want)}`, () => {
      assert.equal(findJsonErrorOffset(c.text), c.want);
    });
  }

  test("finds nothing wrong in any valid JSON text", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom(undefined, 2), (value, indent) => {
        assert.equal(findJsonErrorOffset(JSON.stringify(value, null, indent)), undefined);
      }),
    );
  });

  test("agrees with V8 wherever V8 reports a position, on damaged JSON", () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.nat(),
        fc.constantFrom("", "}", "]", ",", ":", '"', "x", "0", "-", "\n", "\\"),
        (value, at, insert) => {
          const text = JSON.stringify(value);
          const cut = at % (text.length + 1);
          const damaged = text.slice(0, cut) + insert + text.slice(cut + 1);
          const v8 = v8Offset(damaged);
          fc.pre(v8 !== undefined);
          assert.equal(findJsonErrorOffset(damaged), v8);
        },
      ),
    );
  });
});
