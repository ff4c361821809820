// The JSON scanner finds exactly the positions the YAML-based lookup finds in the same JSON text.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { LineCounter, parseDocument } from "yaml";
import { pathIndex, pathKey } from "../core/issues.js";
import { createJsonPositionLookup } from "./json-position-lookup.js";
import { createPositionLookup } from "./position-lookup.js";

function yamlLookup(text: string): ReturnType<typeof createPositionLookup> {
  const lineCounter = new LineCounter();
  return createPositionLookup(parseDocument(text, { lineCounter }), lineCounter);
}

/** Every path into `value` (as issue paths), plus a child that is not there under each container. */
function pathsOf(value: unknown, prefix = ""): string[] {
  const out = [prefix];
  if (Array.isArray(value)) {
    value.forEach((v, i) => out.push(...pathsOf(v, pathIndex(prefix, i))));
    out.push(pathIndex(prefix, value.length));
  } else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, pathKey(prefix, k)));
    out.push(pathKey(prefix, "absent"));
  }
  return out;
}

describe("createJsonPositionLookup", () => {
  const text = [
    "{", // 1
    '  "start": "2025-01-01T00:00:00Z",', // 2
    '  "config": {"evictionHard": {"memory.available": "1Gi", "a\\"b": 1}},', // 3
    '  "steps": [', // 4
    '    {"at": "0s", "summary": {"node": {"fs": {"inodes": 18446744073709551615}}}},', // 5
    '    {"at": "10s", "tags": ["x", "]}", {"y": [1, 2]}]}', // 6
    "  ],", // 7
    '  "steps": "duplicate: the first one is found"', // 8
    "}",
  ].join("\r\n");
  const cases: [string, string | undefined][] = [
    ["", "1:1"],
    ["start", "2:3"],
    ['config.evictionHard["memory.available"]', "3:31"],
    ['config.evictionHard["a\\"b"]', "3:58"],
    ["config.evictionHard.absent", "3:14"],
    ["steps[0]", "5:5"],
    ["steps[0].summary.node.fs.inodes", "5:46"],
    ["steps[1].tags[2].y[1]", "6:49"],
    ["steps[1].tags[5]", "6:19"],
    ["absent", undefined],
    ["steps[", undefined],
  ];
  const json = createJsonPositionLookup(text);
  const yaml = yamlLookup(text);
  for (const [path, want] of cases) {
    test(JSON.stringify(path), () => {
      const got = json.locate(path);
      assert.equal(got === undefined ? undefined : `${got.line}:${got.column}`, want);
      assert.deepEqual(got, yaml.locate(path), "the same as the YAML lookup");
    });
  }

  test("random JSON, compact and indented: the same positions as the YAML lookup", () => {
    // Keys and strings YAML reads as JSON does (no control characters; short keys).
    const key = fc.string({
      unit: fc.constantFrom("a", "b", ".", " ", '"', "\\", "é", "[", "0"),
      maxLength: 4,
    });
    const value = fc.letrec((tie) => ({
      any: fc.oneof(
        { depthSize: "small" },
        fc.integer(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        key,
        tie("list"),
        tie("map"),
      ),
      list: fc.array(tie("any"), { maxLength: 4 }),
      map: fc.dictionary(key, tie("any"), { maxKeys: 4 }),
    })).map;
    fc.assert(
      fc.property(value, fc.constantFrom(0, 2), (v, indent) => {
        const text = JSON.stringify(v, null, indent);
        const json = createJsonPositionLookup(text);
        const yaml = yamlLookup(text);
        for (const path of pathsOf(v))
          assert.deepEqual(json.locate(path), yaml.locate(path), `${path} in ${text}`);
      }),
      { numRuns: 300 },
    );
  });
});
