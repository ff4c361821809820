// Map-flag and string-slice flag value syntaxes (component-base / pflag parity).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { goTrimSpace, parseMapFlagValue, parseStringSliceFlagValue } from "./flag-value-syntax.js";

describe("parseMapFlagValue", () => {
  const cases: {
    name: string;
    value: string;
    sep: "<" | "=";
    pairs: [string, string][];
    malformed?: string;
  }[] = [
    { name: "one pair", value: "memory.available<1Gi", sep: "<", pairs: [["memory.available", "1Gi"]] },
    {
      name: "several pairs",
      value: "memory.available<1Gi,nodefs.available<10%",
      sep: "<",
      pairs: [
        ["memory.available", "1Gi"],
        ["nodefs.available", "10%"],
      ],
    },
    {
      name: "trims key and value",
      value: " memory.available < 1Gi ",
      sep: "<",
      pairs: [["memory.available", "1Gi"]],
    },
    {
      name: "empty segments skipped",
      value: ",,memory.available<1Gi,",
      sep: "<",
      pairs: [["memory.available", "1Gi"]],
    },
    { name: "split on the first separator", value: "a<b<c", sep: "<", pairs: [["a", "b<c"]] },
    { name: "empty key kept", value: "<1Gi", sep: "<", pairs: [["", "1Gi"]] },
    { name: "empty value kept", value: "memory.available<", sep: "<", pairs: [["memory.available", ""]] },
    { name: "empty input", value: "", sep: "<", pairs: [] },
    {
      name: "missing < is malformed, other pairs kept",
      value: "memory.available=1Gi,nodefs.available<10%",
      sep: "<",
      pairs: [["nodefs.available", "10%"]],
      malformed: "malformed pair, expect string<string",
    },
    { name: "equals map", value: "memory.available=1m30s", sep: "=", pairs: [["memory.available", "1m30s"]] },
    {
      name: "missing = is malformed",
      value: "memory.available<1m",
      sep: "=",
      pairs: [],
      malformed: "malformed pair, expect string=string",
    },
    {
      name: "duplicates kept in order",
      value: "a=1,a=2",
      sep: "=",
      pairs: [
        ["a", "1"],
        ["a", "2"],
      ],
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const got = parseMapFlagValue(c.value, c.sep);
      assert.deepEqual(
        got.pairs.map((p) => [p.key, p.value]),
        c.pairs,
      );
      assert.equal(got.malformed, c.malformed);
    });
  }
});

describe("goTrimSpace", () => {
  test("trims Go's unicode.IsSpace set, not U+FEFF", () => {
    assert.equal(goTrimSpace("\t\u0085\u00a0 x \u3000\n"), "x");
    assert.equal(goTrimSpace("\uFEFFx"), "\uFEFFx");
  });
});

describe("parseStringSliceFlagValue", () => {
  const cases: [string, readonly string[] | string][] = [
    ["", []],
    ["pods", ["pods"]],
    ["pods,kube-reserved", ["pods", "kube-reserved"]],
    ["pods, kube-reserved", ["pods", " kube-reserved"]],
    ['"pods","a,b"', ["pods", "a,b"]],
    ['"say ""hi"""', ['say "hi"']],
    ["a,", ["a", ""]],
    [",", ["", ""]],
    ["a\nb", ["a"]],
    ['a"b', 'parse error on line 1, column 2: bare " in non-quoted-field'],
    ['"ab', 'parse error on line 1, column 4: extraneous or missing " in quoted-field'],
    ['"a"b', 'parse error on line 1, column 4: extraneous or missing " in quoted-field'],
  ];
  for (const [input, want] of cases) {
    test(JSON.stringify(input), () => {
      const got = parseStringSliceFlagValue(input);
      if (typeof want === "string") assert.deepEqual(got, { ok: false, message: want });
      else assert.deepEqual(got, { ok: true, items: want });
    });
  }
});
