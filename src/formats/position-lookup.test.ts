// Issue paths → line:column in YAML and JSON documents.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { LineCounter, parseDocument } from "yaml";
import type { Issue } from "../core/issues.js";
import { createPositionLookup, locateIssues, parseIssuePath } from "./position-lookup.js";

function lookup(text: string): ReturnType<typeof createPositionLookup> {
  const lineCounter = new LineCounter();
  return createPositionLookup(parseDocument(text, { lineCounter }), lineCounter);
}

describe("parseIssuePath", () => {
  const cases: [string, (string | number)[] | undefined][] = [
    ["", []],
    ["config", ["config"]],
    ["config.evictionHard", ["config", "evictionHard"]],
    ['config.evictionHard["memory.available"]', ["config", "evictionHard", "memory.available"]],
    ['["memory.available"]', ["memory.available"]],
    ["flags[2]", ["flags", 2]],
    ['flags[2]["a\\"b"]', ["flags", 2, 'a"b']],
    ['spec.kubeletConfig.evictionHard[""]', ["spec", "kubeletConfig", "evictionHard", ""]],
    ["config..x", undefined],
    ["config[x]", undefined],
  ];
  for (const [path, want] of cases)
    test(JSON.stringify(path), () => assert.deepEqual(parseIssuePath(path), want));
});

describe("locate", () => {
  const yaml = [
    "apiVersion: kubelet.config.k8s.io/v1beta1", // 1
    "kind: KubeletConfiguration", // 2
    "evictionHard:", // 3
    "  memory.available: 0", // 4
    '  "nodefs.available": 10%', // 5
    "enforceNodeAllocatable:", // 6
    "  - pods", // 7
    "  - podz", // 8
    "",
  ].join("\n");

  test("map keys, list items, the root", () => {
    const p = lookup(yaml);
    assert.deepEqual(p.locate('evictionHard["memory.available"]'), { line: 4, column: 3 });
    assert.deepEqual(p.locate('evictionHard["nodefs.available"]'), { line: 5, column: 3 });
    assert.deepEqual(p.locate("enforceNodeAllocatable[1]"), { line: 8, column: 5 });
    assert.deepEqual(p.locate("kind"), { line: 2, column: 1 });
    assert.deepEqual(p.locate(""), { line: 1, column: 1 });
  });

  test("a missing key falls back to its nearest ancestor; nothing matched → undefined", () => {
    const p = lookup(yaml);
    assert.deepEqual(p.locate('evictionHard["imagefs.available"]'), { line: 3, column: 1 });
    assert.equal(p.locate("evictionSoft"), undefined);
    assert.equal(p.locate("not a path!"), undefined);
  });

  test("JSON documents", () => {
    const p = lookup('{\n  "evictionHard": {\n    "memory.available": "0"\n  }\n}\n');
    assert.deepEqual(p.locate('evictionHard["memory.available"]'), { line: 3, column: 5 });
  });

  test("through aliases", () => {
    const p = lookup("base: &b\n  memory.available: 1Gi\nevictionHard: *b\n");
    assert.deepEqual(p.locate('evictionHard["memory.available"]'), { line: 2, column: 3 });
  });
});

describe("locateIssues", () => {
  const positions = lookup("evictionHard:\n  memory.available: 0\n");
  const issue = (path: string): Issue => ({ severity: "error", path, code: "x", message: "m" });

  test("only issues under the prefix get file, line and column", () => {
    const out = locateIssues(
      [
        issue('config.evictionHard["memory.available"]'),
        issue("flags[0]"),
        issue("config.evictionSoft"),
        issue("configuration"),
      ],
      "config",
      positions,
      "/etc/kubelet.yaml",
    );
    assert.deepEqual(out, [
      { ...issue('config.evictionHard["memory.available"]'), file: "/etc/kubelet.yaml", line: 2, column: 3 },
      issue("flags[0]"),
      { ...issue("config.evictionSoft"), file: "/etc/kubelet.yaml" },
      issue("configuration"),
    ]);
  });

  test("an empty prefix treats every path as relative to the document root", () => {
    const scenario = lookup("config:\n  evictionHard:\n    memory.available: 0\nflags:\n  - --foo\n");
    const out = locateIssues(
      [issue('config.evictionHard["memory.available"]'), issue("flags[0]")],
      "",
      scenario,
      "s.yaml",
    );
    assert.deepEqual(
      out.map((i) => [i.line, i.column]),
      [
        [3, 5],
        [5, 5],
      ],
    );
  });
});
