// A trace step's `nodeMemoryViews`: written with every digit, read back exactly (numbers, the YAML
// reader's bigints, the JSON reader's exact-integer sentinels), every malformed field an error at
// its own path.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "../issues.js";
import { EXACT_INT_PREFIX } from "../summary/exact-integer.js";
import { toExactJson } from "../summary/to-exact-json.js";
import type { NodeMemoryViewsReading } from "./node-memory-views.js";
import { decodeNodeMemoryViewsRecord, nodeMemoryViewsRecord } from "./node-memory-views-record.js";

const START = Date.UTC(2026, 0, 2, 3, 4, 5);
const BIG = 18446744073709551615n; // 2^64 − 1: far above 2^53, a double would round it
const PATH = "steps[3].nodeMemoryViews";

const reading: NodeMemoryViewsReading = {
  at: START + 10_012.4,
  source: "the root cgroup's /sys/fs/cgroup/memory.stat and /proc/meminfo",
  views: {
    capacityBytes: BIG,
    kubelet: {
      usageFrom: "anon + file",
      workingSetBytes: 9007199254740993n,
      availableBytes: BIG - 9007199254740993n,
    },
    kernelAvailable: { availableBytes: 9007199254740995n },
    withKernelMemory: {
      kernelMemoryBytes: 123456789n,
      kernelMemoryFrom: "kernel + sock",
      alreadyInKubeletFigure: false,
      workingSetBytes: 9007199254740993n + 123456789n,
      availableBytes: BIG - 9007199254740993n - 123456789n,
    },
  },
};

/** What parseJsonExact gives for a written record: safe integers as numbers, the rest as sentinels. */
function asParsed(json: string): unknown {
  return JSON.parse(
    json.replace(/(?<=[:[,])(\d+)(?=[,}\]])/g, (digits) =>
      Number.isSafeInteger(Number(digits)) ? digits : JSON.stringify(EXACT_INT_PREFIX + digits),
    ),
  ) as unknown;
}

describe("nodeMemoryViewsRecord", () => {
  test("written as the other byte counters are: every digit, at in whole ms since start", () => {
    const json = toExactJson(nodeMemoryViewsRecord(reading, START));
    assert.equal(
      json,
      '{"at":"10.012s","source":"the root cgroup\'s /sys/fs/cgroup/memory.stat and /proc/meminfo",' +
        '"capacityBytes":18446744073709551615,' +
        '"kubelet":{"usageFrom":"anon + file","workingSetBytes":9007199254740993,"availableBytes":18437736874454810622},' +
        '"kernelAvailable":{"availableBytes":9007199254740995},' +
        '"withKernelMemory":{"kernelMemoryBytes":123456789,"kernelMemoryFrom":"kernel + sock","alreadyInKubeletFigure":false,' +
        '"workingSetBytes":9007199378197782,"availableBytes":18437736874331353833}}',
    );
  });

  test("views a kernel did not give are left out", () => {
    const { kernelAvailable: _, withKernelMemory: __, ...bare } = reading.views;
    assert.deepEqual(Object.keys(nodeMemoryViewsRecord({ ...reading, views: bare }, START)), [
      "at",
      "source",
      "capacityBytes",
      "kubelet",
    ]);
  });
});

describe("decodeNodeMemoryViewsRecord", () => {
  test("round trip: exactly the views read, uint64 above 2^53 included, at as ms since start", () => {
    const issues = new IssueList();
    const decoded = decodeNodeMemoryViewsRecord(
      asParsed(toExactJson(nodeMemoryViewsRecord(reading, START))),
      PATH,
      issues,
    );
    assert.deepEqual(issues.items, []);
    assert.deepEqual(decoded, { atMs: 10_012, source: reading.source, views: reading.views });
  });

  test("bigints (the YAML reader's) and plain numbers; at and source optional", () => {
    const issues = new IssueList();
    const decoded = decodeNodeMemoryViewsRecord(
      {
        capacityBytes: 1073741824,
        kubelet: { usageFrom: "memory.current", workingSetBytes: 1n, availableBytes: 1073741823 },
      },
      PATH,
      issues,
    );
    assert.deepEqual(issues.items, []);
    assert.deepEqual(decoded, {
      views: {
        capacityBytes: 1073741824n,
        kubelet: { usageFrom: "memory.current", workingSetBytes: 1n, availableBytes: 1073741823n },
      },
    });
  });

  const good = asParsed(toExactJson(nodeMemoryViewsRecord(reading, START))) as Record<string, unknown>;
  const kubelet = good["kubelet"] as Record<string, unknown>;
  const kernel = good["withKernelMemory"] as Record<string, unknown>;
  const cases: { name: string; raw: unknown; errors: [string, RegExp][] }[] = [
    {
      name: "not a mapping",
      raw: [1],
      errors: [[PATH, /expected a mapping of the node's memory views, got/]],
    },
    {
      name: "a negative byte count",
      raw: { ...good, capacityBytes: -1 },
      errors: [[`${PATH}.capacityBytes`, /expected a non-negative integer \(uint64\), got -1/]],
    },
    {
      name: "above uint64",
      raw: { ...good, kubelet: { ...kubelet, availableBytes: `${EXACT_INT_PREFIX}18446744073709551616` } },
      errors: [[`${PATH}.kubelet.availableBytes`, /got 18446744073709551616/]],
    },
    {
      name: "a count rounded by a reader without exact integers",
      raw: { ...good, kernelAvailable: { availableBytes: 2 ** 60 } },
      errors: [[`${PATH}.kernelAvailable.availableBytes`, /beyond 2\^53 and was rounded/]],
    },
    {
      name: "bytes as a quantity string",
      raw: { ...good, withKernelMemory: { ...kernel, kernelMemoryBytes: "1Gi" } },
      errors: [[`${PATH}.withKernelMemory.kernelMemoryBytes`, /got "1Gi"/]],
    },
    {
      name: "missing fields",
      raw: { at: "1s", kubelet: { usageFrom: "" } },
      errors: [
        [`${PATH}.capacityBytes`, /missing/],
        [`${PATH}.kubelet.usageFrom`, /non-empty string/],
        [`${PATH}.kubelet.workingSetBytes`, /missing/],
        [`${PATH}.kubelet.availableBytes`, /missing/],
      ],
    },
    {
      name: "a flag that is not a boolean",
      raw: { ...good, withKernelMemory: { ...kernel, alreadyInKubeletFigure: "no" } },
      errors: [[`${PATH}.withKernelMemory.alreadyInKubeletFigure`, /expected true or false, got "no"/]],
    },
    {
      name: "at not a duration",
      raw: { ...good, at: "later" },
      errors: [[`${PATH}.at`, /later/]],
    },
    {
      name: "at negative",
      raw: { ...good, at: "-1s" },
      errors: [[`${PATH}.at`, /must not be negative/]],
    },
    {
      name: "source not a string",
      raw: { ...good, source: 7 },
      errors: [[`${PATH}.source`, /expected a string, got 7/]],
    },
  ];
  for (const c of cases)
    test(`rejected, naming the field: ${c.name}`, () => {
      const issues = new IssueList();
      assert.equal(decodeNodeMemoryViewsRecord(c.raw, PATH, issues), undefined);
      assert.deepEqual(
        issues.errors.map((i) => i.path),
        c.errors.map(([p]) => p),
      );
      issues.errors.forEach((i, k) => assert.match(i.message, c.errors[k]?.[1] ?? /^$/));
    });

  test("an unknown key is a warning, and the views are kept", () => {
    const issues = new IssueList();
    const decoded = decodeNodeMemoryViewsRecord(
      { ...good, swap: 1, kubelet: { ...kubelet, rss: 2 } },
      PATH,
      issues,
    );
    assert.deepEqual(
      issues.items.map((i) => [i.severity, i.path]),
      [
        ["warning", `${PATH}.swap`],
        ["warning", `${PATH}.kubelet.rss`],
      ],
    );
    assert.deepEqual(decoded?.views, reading.views);
  });
});
