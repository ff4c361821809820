/**
 * `evictd replay -` reads the scenario from stdin (docs/replay-format.md: "SCENARIO: a path, or -
 * for stdin"): the same records as from a file, the same input checks, paths resolved from the
 * working directory.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
  CLI_SKIP,
  DATA,
  EXAMPLES,
  assertInputError,
  assertNoCrash,
  parseJsonl,
  runEvictd,
  runEvictdIn,
  stderrLines,
} from "./evictd-cli.js";

describe("evictd replay - (stdin)", { skip: CLI_SKIP }, () => {
  test("a YAML scenario on stdin replays exactly like the same file", () => {
    const file = join(EXAMPLES, "hard-memory-pressure.yaml");
    const fromFile = runEvictd(["replay", file, "--output", "jsonl"]);
    const fromStdin = runEvictd(["replay", "-", "--output", "jsonl"], { input: readFileSync(file) });
    assert.equal(fromStdin.status, 0, fromStdin.stderr);
    assertNoCrash(fromStdin);
    assert.equal(fromFile.status, 0, fromFile.stderr);
    const records = parseJsonl(fromStdin.stdout);
    assert.equal(records.length, 1 + 4, "config record + 4 steps");
    assert.equal(fromStdin.stdout, fromFile.stdout);
  });

  test("a JSON scenario on stdin, with table output", () => {
    const scenario = JSON.stringify({
      start: "2025-01-01T00:00:00Z",
      config: { evictionHard: { "memory.available": "1Gi" } },
      pods: [{ metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app" }] } }],
      steps: [
        {
          at: "15s",
          summary: {
            node: { memory: { availableBytes: 536870912, workingSetBytes: 7516192768 } },
            pods: [
              { podRef: { name: "web", namespace: "default" }, memory: { workingSetBytes: 1073741824 } },
            ],
          },
        },
      ],
    });
    const r = runEvictd(["replay", "-", "--output", "table"], { input: scenario });
    assert.equal(r.status, 0, r.stderr);
    assertNoCrash(r);
    assert.match(r.stdout, /15s/);
    assert.match(r.stdout, /memory\.available\s+512Mi\s+7680Mi/);
    assert.match(r.stdout, /MemoryPressure/);
    assert.match(r.stdout, /EVICTED default\/web/);
  });

  test("relative file references on stdin resolve from the working directory", () => {
    const scenario = "steps:\n  - at: 0s\n    summary: summary-6.json\n";
    const r = runEvictdIn(DATA, ["replay", "-", "--output", "jsonl"], { input: scenario });
    assert.equal(r.status, 0, r.stderr);
    const [, step] = parseJsonl(r.stdout);
    assert.ok(step !== undefined);
    const summary = JSON.parse(readFileSync(join(DATA, "summary-6.json"), "utf8")) as {
      node: { memory: { availableBytes: number; workingSetBytes: number } };
    };
    const memory = (step["observations"] as Record<string, { available: string; capacity: string }>)[
      "memory.available"
    ];
    assert.ok(memory !== undefined, "no memory.available observation from summary-6.json");
    // 15211810816 = 14855284Ki; + 1417551872 working set = 16629362688 = 16239612Ki.
    assert.equal(summary.node.memory.availableBytes, 15211810816);
    assert.deepEqual([memory.available, memory.capacity], ["14855284Ki", "16239612Ki"]);
  });

  test("invalid YAML on stdin: exit 2, the error located by line:column", () => {
    const input =
      "steps:\n  - at: 0s\n    summary: {node: {memory: {availableBytes: 1, workingSetBytes: 2]}}\n";
    const [line] = assertInputError(runEvictd(["replay", "-"], { input }), [
      { path: "scenario", mentions: ["}"] },
    ]);
    assert.match(line ?? "", /stdin.*:3:68: scenario: /);
  });

  test("invalid values on stdin: every problem reported", () => {
    const input =
      "steps:\n  - at: 30\n    summary: {node: {memory: {availableBytes: -1, workingSetBytes: 2}}}\n";
    assertInputError(runEvictd(["replay", "-"], { input }), [
      { path: "steps[0].at", mentions: ["30"] },
      { path: "steps[0].summary.node.memory.availableBytes", mentions: ["-1"] },
    ]);
  });

  test("empty stdin: exit 2", () => {
    assertInputError(runEvictd(["replay", "-"], { input: "" }), [{ path: "scenario", mentions: ["empty"] }]);
  });

  test("binary stdin (random bytes with NUL): exit 2", () => {
    const bytes = randomBytes(256);
    bytes[3] = 0;
    const r = runEvictd(["replay", "-"], { input: bytes });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stdout, "");
    assertNoCrash(r);
    assert.ok(stderrLines(r).length > 0);
  });

  test("invalid UTF-8 on stdin is refused like in a file (not silently replaced by U+FFFD)", () => {
    const input = Buffer.concat([
      Buffer.from('steps:\n  - at: 0s\npods:\n  - metadata: {name: "caf'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}\n    spec: {containers: [{name: c}]}\n'),
    ]);
    assertInputError(runEvictd(["replay", "-", "--output", "jsonl"], { input }), [
      { path: "scenario", mentions: ["UTF-8"] },
    ]);
  });
});
