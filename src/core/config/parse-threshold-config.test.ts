// ParseThresholdConfig: results, ids, order, allocatable copies, min reclaim, and collected errors.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList, pathKey } from "../issues.js";
import type { Threshold, ThresholdValue } from "../model.js";
import { formatQuantity } from "../quantity.js";
import { type ThresholdConfigInput, parseThresholdConfig } from "./parse-threshold-config.js";
import type { SettingMap } from "./setting-types.js";

function map(field: string, obj: Record<string, string> = {}): SettingMap {
  const path = `config.${field}`;
  return {
    path,
    entries: Object.entries(obj).map(([key, value]) => ({ key, value, path: pathKey(path, key) })),
  };
}

function input(p: {
  hard?: Record<string, string>;
  soft?: Record<string, string>;
  grace?: Record<string, string>;
  reclaim?: Record<string, string>;
  enforce?: string[];
}): ThresholdConfigInput {
  return {
    enforceNodeAllocatable: p.enforce ?? ["pods"],
    evictionHard: map("evictionHard", p.hard),
    evictionSoft: map("evictionSoft", p.soft),
    evictionSoftGracePeriod: map("evictionSoftGracePeriod", p.grace),
    evictionMinimumReclaim: map("evictionMinimumReclaim", p.reclaim),
  };
}

const text = (v: ThresholdValue | undefined): string | undefined =>
  v === undefined ? undefined : v.kind === "quantity" ? formatQuantity(v.quantity) : v.text;

/** id, signal, value, grace ms, min reclaim, origin, derivedFrom. */
function rows(ts: readonly Threshold[]): unknown[] {
  return ts.map((t) => [
    t.id,
    t.signal,
    text(t.value),
    t.gracePeriodMs,
    text(t.minReclaim),
    t.origin,
    t.derivedFrom,
  ]);
}

function run(p: Parameters<typeof input>[0]): {
  thresholds: Threshold[];
  issues: [string, string, string][];
} {
  const issues = new IssueList();
  const thresholds = parseThresholdConfig(input(p), issues);
  return { thresholds, issues: issues.items.map((i) => [i.path, i.code, i.message]) };
}

describe("results", () => {
  test("hard thresholds in key order, then soft, then allocatable copies", () => {
    const { thresholds, issues } = run({
      hard: { "nodefs.available": "10%", "memory.available": "500Mi" },
      soft: { "memory.available": "1Gi", "nodefs.available": "15%" },
      grace: { "nodefs.available": "1m30s", "memory.available": "30s" },
    });
    assert.deepEqual(issues, []);
    assert.deepEqual(rows(thresholds), [
      ["hard/nodefs.available", "nodefs.available", "10%", 0, undefined, "hard", undefined],
      ["hard/memory.available", "memory.available", "500Mi", 0, undefined, "hard", undefined],
      ["soft/memory.available", "memory.available", "1Gi", 30_000, undefined, "soft", undefined],
      ["soft/nodefs.available", "nodefs.available", "15%", 90_000, undefined, "soft", undefined],
      [
        "allocatable/hard/memory.available",
        "allocatableMemory.available",
        "500Mi",
        0,
        undefined,
        "allocatable",
        "memory.available",
      ],
    ]);
    assert.ok(thresholds.every((t) => t.operator === "LessThan"));
  });

  test("min reclaim attaches to every threshold of its signal, and to the allocatable copy", () => {
    const { thresholds, issues } = run({
      hard: { "memory.available": "500Mi", "nodefs.available": "10%" },
      soft: { "memory.available": "1Gi" },
      grace: { "memory.available": "1m" },
      reclaim: { "memory.available": "200Mi", "allocatableMemory.available": "1Gi" },
    });
    assert.deepEqual(issues, []);
    assert.deepEqual(rows(thresholds), [
      ["hard/memory.available", "memory.available", "500Mi", 0, "200Mi", "hard", undefined],
      ["hard/nodefs.available", "nodefs.available", "10%", 0, undefined, "hard", undefined],
      ["soft/memory.available", "memory.available", "1Gi", 60_000, "200Mi", "soft", undefined],
      // The copy takes the source's reclaim, not allocatableMemory.available's.
      [
        "allocatable/hard/memory.available",
        "allocatableMemory.available",
        "500Mi",
        0,
        "200Mi",
        "allocatable",
        "memory.available",
      ],
    ]);
    // Upstream shares one reclaim value between the thresholds of a signal.
    assert.equal(thresholds[0]?.minReclaim, thresholds[2]?.minReclaim);
  });

  test("a soft memory threshold with 0s grace is hard: it is copied too, keeping its soft id", () => {
    const { thresholds } = run({ soft: { "memory.available": "10%" }, grace: { "memory.available": "0s" } });
    assert.deepEqual(rows(thresholds), [
      ["soft/memory.available", "memory.available", "10%", 0, undefined, "soft", undefined],
      [
        "allocatable/soft/memory.available",
        "allocatableMemory.available",
        "10%",
        0,
        undefined,
        "allocatable",
        "memory.available",
      ],
    ]);
    const copy = thresholds[1]?.value;
    assert.ok(
      copy?.kind === "percentage" && copy.percentage === 0.10000000149011612,
      "same percentage as the source",
    );
  });

  test("no allocatable copies unless enforceNodeAllocatable contains pods", () => {
    for (const enforce of [[], ["none"], ["kube-reserved", "system-reserved"]]) {
      const { thresholds } = run({ hard: { "memory.available": "100Mi" }, enforce });
      assert.deepEqual(
        thresholds.map((t) => t.id),
        ["hard/memory.available"],
        JSON.stringify(enforce),
      );
    }
    const { thresholds } = run({
      hard: { "memory.available": "100Mi" },
      enforce: ["kube-reserved", "pods", "pods"],
    });
    assert.deepEqual(
      thresholds.map((t) => t.id),
      ["hard/memory.available", "allocatable/hard/memory.available"],
    );
  });

  test("a user allocatableMemory.available threshold coexists with the copy", () => {
    const { thresholds } = run({
      hard: { "allocatableMemory.available": "1Gi", "memory.available": "100Mi" },
    });
    assert.deepEqual(
      thresholds.map((t) => [t.id, t.signal, text(t.value)]),
      [
        ["hard/allocatableMemory.available", "allocatableMemory.available", "1Gi"],
        ["hard/memory.available", "memory.available", "100Mi"],
        ["allocatable/hard/memory.available", "allocatableMemory.available", "100Mi"],
      ],
    );
  });

  test("0% and 100% drop the threshold (and so its copy); 100.0% and 0.0% do not", () => {
    const dropped = run({ hard: { "memory.available": "100%", "nodefs.available": "0%" } });
    assert.deepEqual(dropped.issues, []);
    assert.deepEqual(dropped.thresholds, []);
    const kept = run({ hard: { "memory.available": "100.0%", "nodefs.available": "0.0%" } });
    assert.deepEqual(
      rows(kept.thresholds).map((r) => (r as unknown[]).slice(0, 3)),
      [
        ["hard/memory.available", "memory.available", "100.0%"],
        ["hard/nodefs.available", "nodefs.available", "0.0%"],
        ["allocatable/hard/memory.available", "allocatableMemory.available", "100.0%"],
      ],
    );
  });

  test("a soft threshold ignored with 0% needs no grace period", () => {
    const { thresholds, issues } = run({ soft: { "memory.available": "0%" } });
    assert.deepEqual(issues, []);
    assert.deepEqual(thresholds, []);
  });

  test("the same signal in hard and soft yields two independent thresholds", () => {
    const { thresholds } = run({
      hard: { "memory.available": "500Mi" },
      soft: { "memory.available": "1Gi" },
      grace: { "memory.available": "1m" },
      enforce: [],
    });
    assert.deepEqual(
      thresholds.map((t) => t.id),
      ["hard/memory.available", "soft/memory.available"],
    );
  });
});

describe("errors (kubelet-semantics.md §15.10), all collected", () => {
  const cases: { name: string; p: Parameters<typeof input>[0]; want: [string, string, string][] }[] = [
    {
      name: "zero quantity is a startup error, not a way to disable",
      p: { hard: { "memory.available": "0" } },
      want: [
        [
          'config.evictionHard["memory.available"]',
          "non-positive-threshold",
          "eviction threshold memory.available must be positive: 0",
        ],
      ],
    },
    {
      name: "soft threshold without grace period",
      p: { soft: { "memory.available": "1Gi" } },
      want: [
        [
          'config.evictionSoft["memory.available"]',
          "missing-grace-period",
          "grace period must be specified for the soft eviction threshold memory.available",
        ],
      ],
    },
    {
      name: "unknown signal",
      p: { hard: { "foo.available": "1Gi" } },
      want: [
        [
          'config.evictionHard["foo.available"]',
          "unsupported-signal",
          "unsupported eviction signal foo.available",
        ],
      ],
    },
    {
      name: "negative percentage",
      p: { hard: { "nodefs.available": "-5%" } },
      want: [
        [
          'config.evictionHard["nodefs.available"]',
          "percentage-out-of-range",
          "eviction percentage threshold nodefs.available must be >= 0%: -5%",
        ],
      ],
    },
    {
      name: "percentage above 100",
      p: { hard: { "nodefs.available": "150%" } },
      want: [
        [
          'config.evictionHard["nodefs.available"]',
          "percentage-out-of-range",
          "eviction percentage threshold nodefs.available must be <= 100%: 150%",
        ],
      ],
    },
    {
      name: "untrimmed config key",
      p: { hard: { "memory.available ": "1Gi" } },
      want: [
        [
          'config.evictionHard["memory.available "]',
          "unsupported-signal",
          "unsupported eviction signal memory.available ",
        ],
      ],
    },
    {
      name: "grace period and min reclaim keys are validated too",
      p: { grace: { "foo.available": "1m" }, reclaim: { "bar.available": "1Gi" } },
      want: [
        [
          'config.evictionSoftGracePeriod["foo.available"]',
          "unsupported-signal",
          "unsupported eviction signal foo.available",
        ],
        [
          'config.evictionMinimumReclaim["bar.available"]',
          "unsupported-signal",
          "unsupported eviction signal bar.available",
        ],
      ],
    },
    {
      name: "an invalid grace period is reported once, not again as missing",
      p: { soft: { "memory.available": "1Gi" }, grace: { "memory.available": "90" } },
      want: [
        [
          'config.evictionSoftGracePeriod["memory.available"]',
          "invalid-duration",
          'time: missing unit in duration "90"',
        ],
      ],
    },
    {
      name: "negative grace period and bad min reclaims",
      p: {
        soft: { "memory.available": "1Gi" },
        grace: { "memory.available": "-1m" },
        reclaim: { "memory.available": "0%", "nodefs.available": "-1Gi" },
      },
      want: [
        [
          'config.evictionSoftGracePeriod["memory.available"]',
          "negative-grace-period",
          "invalid eviction grace period specified: -1m, must be a positive value",
        ],
        [
          'config.evictionMinimumReclaim["memory.available"]',
          "non-positive-min-reclaim",
          "eviction percentage minimum reclaim memory.available must be positive: 0%",
        ],
        [
          'config.evictionMinimumReclaim["nodefs.available"]',
          "negative-min-reclaim",
          'negative eviction minimum reclaim specified for nodefs.available (value "-1Gi")',
        ],
      ],
    },
    {
      name: "three different errors in one config are three issues, in map order",
      p: {
        hard: { "memory.available": "0", "nodefs.available": "10%", "foo.available": "1Gi" },
        soft: { "imagefs.available": "20%" },
      },
      want: [
        [
          'config.evictionHard["memory.available"]',
          "non-positive-threshold",
          "eviction threshold memory.available must be positive: 0",
        ],
        [
          'config.evictionHard["foo.available"]',
          "unsupported-signal",
          "unsupported eviction signal foo.available",
        ],
        [
          'config.evictionSoft["imagefs.available"]',
          "missing-grace-period",
          "grace period must be specified for the soft eviction threshold imagefs.available",
        ],
      ],
    },
  ];
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(run(c.p).issues, c.want));
  }
});
