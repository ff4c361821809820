import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ScenarioStep } from "../../app/replay/scenario.js";
import { formatIssue } from "../../core/issues.js";
import { exactInteger } from "../json/parse-json-exact.js";
import { TraceRecorder } from "../../app/cluster/trace-recorder.js";
import type { NodeMemoryViews } from "../../core/memory/node-memory-views.js";
import { linesOfText } from "./jsonl-lines.js";
import { readJsonlScenario } from "./jsonl-scenario.js";

const HEADER = JSON.stringify({
  start: "2025-01-01T00:00:00Z",
  config: { evictionHard: { "memory.available": "1Gi" }, mergeDefaultEvictionSettings: true },
  pods: [{ metadata: { name: "web", namespace: "default" }, spec: { containers: [{ name: "app" }] } }],
});
const step = (at: string, available = 536870912): string =>
  JSON.stringify({
    at,
    summary: { node: { memory: { availableBytes: available, workingSetBytes: 1073741824 } } },
  });

async function read(
  lines: readonly string[],
): Promise<{ steps: ScenarioStep[]; issues: string[]; headerOk: boolean }> {
  const opened = await readJsonlScenario(linesOfText(lines.join("\n")), "t.jsonl", process.cwd());
  if (!opened.ok) return { steps: [], issues: opened.issues.map(formatIssue), headerOk: false };
  const steps: ScenarioStep[] = [];
  for await (const s of opened.stream.steps) steps.push(s);
  return {
    steps,
    issues: opened.stream.issues().map(formatIssue),
    headerOk: opened.stream.header !== undefined,
  };
}

describe("readJsonlScenario", () => {
  test("a valid trace: the header, then every step in order, indexed from 0", async () => {
    const r = await read([HEADER, step("0s"), "", step("10s"), "   ", step("20s")]);
    assert.deepEqual(r.issues, []);
    assert.equal(r.headerOk, true);
    assert.deepEqual(
      r.steps.map((s) => [s.index, s.atMs]),
      [
        [0, 0],
        [1, 10_000],
        [2, 20_000],
      ],
    );
  });

  test("steps: [] in the header is allowed", async () => {
    const header = JSON.stringify({ ...(JSON.parse(HEADER) as object), steps: [] });
    const r = await read([header, step("0s")]);
    assert.deepEqual(r.issues, []);
    assert.equal(r.steps.length, 1);
  });

  test("invalid steps 2 and 5: both reported at their lines; replay stops before the first", async () => {
    const r = await read([
      HEADER,
      step("0s"),
      step("10s"),
      '{"at":"20s","summary":{"node":{"memory":{"availableBytes":-1}}}}',
      step("30s"),
      step("40s"),
      '{"at":"5x"}',
      step("60s"),
    ]);
    assert.deepEqual(
      r.steps.map((s) => s.index),
      [0, 1],
      "steps after the first invalid one are checked, never handed on",
    );
    assert.equal(r.issues.length, 2, r.issues.join("\n"));
    assert.match(
      r.issues[0] ?? "",
      /^t\.jsonl:4:\d+: steps\[2\]\.summary\.node\.memory\.availableBytes: .*-1/,
    );
    assert.match(r.issues[1] ?? "", /^t\.jsonl:7:2: steps\[5\]\.at: .*"5x"/);
  });

  test("updatePods: a pod of the header is updated; an unknown UID is an error at its line", async () => {
    const update = (uid: string): string =>
      JSON.stringify({
        at: "10s",
        updatePods: [
          {
            metadata: { name: "web", namespace: "default", uid },
            spec: { containers: [{ name: "app", resources: { requests: { memory: "1Gi" } } }] },
          },
        ],
      });
    const good = await read([HEADER, step("0s"), update("default/web")]);
    assert.deepEqual(good.issues, []);
    assert.deepEqual(
      good.steps.map((s) => s.updatePods.map((p) => p.uid)),
      [[], ["default/web"]],
    );
    const bad = await read([HEADER, step("0s"), update("u-other")]);
    assert.equal(bad.issues.length, 1, bad.issues.join("\n"));
    assert.match(
      bad.issues[0] ?? "",
      /^t\.jsonl:3:\d+: steps\[1\]\.updatePods\[0\]: no pod with uid "u-other"/,
    );
  });

  test("the column of a problem is its position inside the line", async () => {
    const line = '{"at":"0s","summary":{"node":{"memory":{"availableBytes":"lots"}}}}';
    const r = await read([HEADER, line]);
    assert.equal(r.issues.length, 1);
    const column = line.indexOf('"availableBytes"') + 1;
    assert.ok(
      r.issues[0]?.startsWith(`t.jsonl:2:${column}: steps[0].summary.node.memory.availableBytes: `),
      r.issues[0],
    );
  });

  test("a line that is not JSON, and a line that is not an object", async () => {
    const r = await read([HEADER, step("0s"), '{"at": "10s",}', "[1, 2]", "42", step("20s")]);
    assert.equal(r.steps.length, 1);
    assert.equal(r.issues.length, 3, r.issues.join("\n"));
    assert.match(r.issues[0] ?? "", /^t\.jsonl:3:\d+: steps\[1\]: invalid JSON: /);
    assert.match(r.issues[1] ?? "", /^t\.jsonl:4:1: steps\[2\]: expected a step mapping .*got a list/);
    assert.match(r.issues[2] ?? "", /^t\.jsonl:5:1: steps\[3\]: expected a step mapping .*got 42/);
  });

  test("steps out of order are reported as in a document", async () => {
    const r = await read([HEADER, step("10s"), step("5s")]);
    assert.equal(r.issues.length, 1);
    assert.match(
      r.issues[0] ?? "",
      /^t\.jsonl:3:2: steps\[1\]\.at: steps must be strictly increasing in time: 5s/,
    );
  });

  test("a header holding steps is an error, and the step lines are still checked", async () => {
    const header = JSON.stringify({ ...(JSON.parse(HEADER) as object), steps: [{ at: "0s" }] });
    const r = await read([header, '{"at":"bad"}']);
    assert.equal(r.headerOk, false);
    assert.equal(r.steps.length, 0);
    assert.equal(r.issues.length, 2, r.issues.join("\n"));
    assert.match(
      r.issues[0] ?? "",
      /^t\.jsonl:1:\d+: steps: a JSONL header holds no steps .*a list of 1 step/,
    );
    assert.match(r.issues[1] ?? "", /^t\.jsonl:2:2: steps\[0\]\.at: /);
  });

  test("an invalid header: nothing is handed on, every problem is collected", async () => {
    const r = await read([
      '{"config":{"evictionHard":{"memory.available":"lots"}},"start":"soon"}',
      step("0s"),
      '{"at":1}',
    ]);
    assert.equal(r.headerOk, false);
    assert.equal(r.steps.length, 0);
    const errors = r.issues.filter((i) => !i.includes("warning:"));
    assert.equal(errors.length, 3, r.issues.join("\n"));
    assert.ok(errors.some((i) => /^t\.jsonl:1:\d+: start: /.test(i)));
    assert.ok(errors.some((i) => /^t\.jsonl:1:\d+: config\.evictionHard\["memory\.available"\]: /.test(i)));
    assert.ok(errors.some((i) => /^t\.jsonl:3:2: steps\[1\]\.at: /.test(i)));
  });

  test("a header that is not an object, or not JSON", async () => {
    const list = await read(["[1]", step("0s")]);
    assert.match(list.issues[0] ?? "", /^t\.jsonl:1:1: scenario: expected a mapping at the top level/);
    const broken = await read(['{"start":', step("0s")]);
    assert.match(broken.issues[0] ?? "", /^t\.jsonl:1:\d+: scenario: invalid JSON/);
  });

  test("leading blank lines: the header is the first non-blank line, lines keep their numbers", async () => {
    const r = await read(["", "", HEADER, '{"at":-1}']);
    assert.match(r.issues[0] ?? "", /^t\.jsonl:4:2: steps\[0\]\.at: /);
  });

  test("no line at all is an empty file", async () => {
    const r = await read(["", "  "]);
    assert.deepEqual(r.issues, ["t.jsonl: scenario: the file is empty"]);
  });

  test("uint64 counters stay exact", async () => {
    const line =
      '{"at":"0s","summary":{"node":{"fs":{"inodes":18446744073709551615,"inodesFree":18446744073709551614}}}}';
    const r = await read([HEADER, line]);
    assert.deepEqual(r.issues, []);
    const raw = r.steps[0]?.summary?.raw as { node: { fs: { inodes: unknown } } };
    assert.equal(exactInteger(raw.node.fs.inodes), 18446744073709551615n);
  });

  test("nodeMemoryViews as the trace recorder writes them: read back exactly; a bad one an error at its line", async () => {
    const start = Date.parse("2025-01-01T00:00:00Z");
    const views: NodeMemoryViews = {
      capacityBytes: 18446744073709551615n,
      kubelet: {
        usageFrom: "memory.current",
        workingSetBytes: 9007199254740993n,
        availableBytes: 18437736874454810622n,
      },
      kernelAvailable: { availableBytes: 9007199254740997n },
      withKernelMemory: {
        kernelMemoryBytes: 4096n,
        kernelMemoryFrom: "kernel + sock",
        alreadyInKubeletFigure: true,
        workingSetBytes: 9007199254740993n,
        availableBytes: 18437736874454810622n,
      },
    };
    const lines: string[] = [];
    const recorder = new TraceRecorder(
      { start, config: (JSON.parse(HEADER) as { config: unknown }).config, evictedPods: "keep", pods: [] },
      (l) => lines.push(l.trimEnd()),
    );
    const summary = { node: { memory: { availableBytes: 536870912, workingSetBytes: 1073741824 } } };
    recorder.step({
      now: start,
      summary,
      activePods: [],
      nodeMemoryViews: { at: start + 3, source: "the node cgroup", views },
    });
    recorder.step({ now: start + 10_000, summary, activePods: [] });
    assert.match(lines[1] ?? "", /"capacityBytes":18446744073709551615,/);
    const good = await read(lines);
    assert.deepEqual(good.issues, []);
    assert.deepEqual(
      good.steps.map((s) => s.nodeMemoryViews),
      [{ atMs: 3, source: "the node cgroup", views }, undefined],
    );

    const bad = (lines[1] ?? "").replace('"workingSetBytes":9007199254740993', '"workingSetBytes":"lots"');
    const r = await read([lines[0] ?? "", bad]);
    assert.equal(r.steps.length, 0, "a step with an error is never handed on");
    assert.equal(r.issues.length, 1, r.issues.join("\n"));
    assert.match(
      r.issues[0] ?? "",
      /^t\.jsonl:2:\d+: steps\[0\]\.nodeMemoryViews\.kubelet\.workingSetBytes: expected a non-negative integer \(uint64\), got "lots"/,
    );
  });

  test("unknown fields are warnings, located in their line", async () => {
    const r = await read([HEADER, '{"at":"0s","color":"red"}']);
    assert.equal(r.steps.length, 1);
    assert.deepEqual(r.issues, ['t.jsonl:2:12: warning: steps[0].color: unknown field "color" (ignored)']);
  });
});
