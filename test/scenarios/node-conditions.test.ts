/**
 * Node conditions (spec §3.2 steps 10-12, §3.5), the fresh-stats rule (§3.2 step 15, §3.6) and a
 * failed stats read (§3.2 step 4).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { NodeCondition } from "../../src/core/model.js";
import { evictedKeys, metSignals, scenario } from "../support/engine-scenario.js";
import { pod } from "../support/pod-manifests.js";
import { node, type NodeStatsSpec } from "../support/summary-builders.js";

describe("node conditions per signal family", () => {
  const rows: {
    signal: string;
    config: Record<string, string>;
    stats: NodeStatsSpec;
    condition: NodeCondition;
  }[] = [
    {
      signal: "memory.available",
      config: { "memory.available": "1Gi" },
      stats: { memAvailable: "500Mi", memWorkingSet: "3Gi" },
      condition: "MemoryPressure",
    },
    {
      signal: "allocatableMemory.available",
      config: { "memory.available": "1Gi" },
      stats: { memAvailable: "4Gi", memWorkingSet: "3Gi", allocAvailable: "500Mi", allocWorkingSet: "3Gi" },
      condition: "MemoryPressure",
    },
    {
      signal: "nodefs.available",
      config: { "nodefs.available": "10Gi" },
      stats: { fsAvailable: "5Gi", fsCapacity: "100Gi" },
      condition: "DiskPressure",
    },
    {
      signal: "nodefs.inodesFree",
      config: { "nodefs.inodesFree": "1k" },
      stats: { fsInodesFree: 500, fsInodes: 1_000_000 },
      condition: "DiskPressure",
    },
    {
      signal: "imagefs.available",
      config: { "imagefs.available": "10Gi" },
      stats: { imageFsAvailable: "5Gi", imageFsCapacity: "100Gi" },
      condition: "DiskPressure",
    },
    {
      signal: "imagefs.inodesFree",
      config: { "imagefs.inodesFree": "1k" },
      stats: { imageFsInodesFree: 500, imageFsInodes: 1_000_000 },
      condition: "DiskPressure",
    },
    {
      // the containerfs threshold mirrors nodefs (single layout); nodefs itself is fine
      signal: "containerfs.available",
      config: { "nodefs.available": "10Gi" },
      stats: {
        fsAvailable: "50Gi",
        fsCapacity: "100Gi",
        containerFsAvailable: "5Gi",
        containerFsCapacity: "100Gi",
      },
      condition: "DiskPressure",
    },
    {
      signal: "containerfs.inodesFree",
      config: { "nodefs.inodesFree": "1k" },
      stats: {
        fsInodesFree: 900_000,
        fsInodes: 1_000_000,
        containerFsInodesFree: 500,
        containerFsInodes: 1_000_000,
      },
      condition: "DiskPressure",
    },
    {
      signal: "pid.available",
      config: { "pid.available": "1k" },
      stats: { maxPid: 10_000, curProc: 9_500 },
      condition: "PIDPressure",
    },
  ];
  for (const row of rows) {
    test(`${row.signal} → ${row.condition}`, () => {
      // two runs: containerfs mirrors are evaluated from the second synchronize on
      const run = scenario({ config: { evictionHard: row.config } })
        .at("0s", node(row.stats))
        .at("10s", node(row.stats))
        .run();
      const r = run.step("10s").report;
      assert.deepStrictEqual(metSignals(r), [row.signal]);
      assert.deepStrictEqual(r.conditions, [row.condition]);
      assert.deepStrictEqual(run.step("10s").state.nodeConditions, [row.condition]);
    });
  }

  test("reported in the order MemoryPressure, DiskPressure, PIDPressure whatever the config order", () => {
    const run = scenario({
      config: {
        evictionHard: { "pid.available": "1k", "nodefs.available": "10Gi", "memory.available": "1Gi" },
      },
    })
      .at(
        "0s",
        node({
          maxPid: 10_000,
          curProc: 9_500,
          fsAvailable: "5Gi",
          fsCapacity: "100Gi",
          memAvailable: "500Mi",
          memWorkingSet: "3Gi",
        }),
      )
      .run();
    assert.deepStrictEqual(run.step("0s").report.conditions, [
      "MemoryPressure",
      "DiskPressure",
      "PIDPressure",
    ]);
  });

  test("a soft threshold inside its grace period already sets the condition", () => {
    const run = scenario({
      config: {
        evictionHard: {},
        evictionSoft: { "nodefs.available": "10Gi" },
        evictionSoftGracePeriod: { "nodefs.available": "5m" },
      },
      pods: [pod("default/a")],
    })
      .at("0s", node({ fsAvailable: "5Gi", fsCapacity: "100Gi" }))
      .run();
    const r = run.step("0s").report;
    assert.deepStrictEqual(r.conditions, ["DiskPressure"]);
    assert.deepStrictEqual(r.evictions, []);
    assert.equal(r.actedOn, undefined);
  });
});

describe("pressure transition period", () => {
  const low = node({ memAvailable: "50Mi", memWorkingSet: "3Gi" });
  const fine = node({ memAvailable: "2Gi", memWorkingSet: "3Gi" });

  test("a condition stays reported for strictly less than the transition period after it was last observed", () => {
    const run = scenario({ config: { evictionHard: { "memory.available": "100Mi" } } })
      .at("0s", low)
      .at("10s", fine)
      .at("4m59s", fine)
      .at("5m", fine)
      .run();
    assert.deepStrictEqual(run.step("10s").report.conditions, ["MemoryPressure"]);
    assert.deepStrictEqual(run.step("10s").report.thresholdsMet, []);
    assert.deepStrictEqual(run.step("4m59s").report.conditions, ["MemoryPressure"]);
    assert.deepStrictEqual(run.step("5m").report.conditions, []);
    assert.deepStrictEqual(run.step("5m").state.nodeConditions, []);
  });

  test("a configured transition period of 1m", () => {
    const run = scenario({
      config: { evictionHard: { "memory.available": "100Mi" }, evictionPressureTransitionPeriod: "1m" },
    })
      .at("0s", low)
      .at("59s", fine)
      .at("1m", fine)
      .run();
    assert.deepStrictEqual(run.step("59s").report.conditions, ["MemoryPressure"]);
    assert.deepStrictEqual(run.step("1m").report.conditions, []);
  });

  test("a 0 transition period from the flag never reports a condition (evictions still happen)", () => {
    const run = scenario({
      config: { evictionHard: { "memory.available": "100Mi" } },
      flags: ["--eviction-pressure-transition-period=0s"],
      pods: [pod("default/a")],
    })
      .at("0s", low)
      .at("10s", low)
      .run();
    for (const at of ["0s", "10s"]) {
      const s = run.step(at);
      assert.deepStrictEqual(s.report.conditions, [], at);
      assert.deepStrictEqual(s.state.nodeConditions, [], at);
      assert.deepStrictEqual(metSignals(s.report), ["memory.available"], at);
      assert.deepStrictEqual(evictedKeys(s.report), ["default/a"], at);
    }
  });

  test("a 0 transition period in the config file is defaulted to 5m", () => {
    const run = scenario({
      config: { evictionHard: { "memory.available": "100Mi" }, evictionPressureTransitionPeriod: "0s" },
    })
      .at("0s", low)
      .at("4m", fine)
      .run();
    assert.deepStrictEqual(run.step("4m").report.conditions, ["MemoryPressure"]);
  });
});

describe("fresh-stats rule (§3.6)", () => {
  const config = { evictionHard: { "memory.available": "100Mi" } };
  const pods = [pod("default/a")];
  const low = (memTime: string | null) => node({ memAvailable: "50Mi", memWorkingSet: "3Gi", memTime });

  test("a run with the same stats time does not act again but keeps the condition; a newer time does", () => {
    const run = scenario({ config, pods })
      .at("0s", low("0s"))
      .at("10s", low("0s"))
      .at("20s", low("20s"))
      .run();
    assert.deepStrictEqual(evictedKeys(run.step("0s").report), ["default/a"]);

    const stale = run.step("10s");
    assert.deepStrictEqual(stale.report.evictions, []);
    assert.equal(stale.report.actedOn, undefined);
    assert.equal(stale.report.nodeEvent, undefined);
    assert.deepStrictEqual(stale.report.conditions, ["MemoryPressure"]);
    assert.deepStrictEqual(
      stale.report.staleStats.map((t) => t.id),
      ["hard/memory.available"],
    );
    // still recorded as grace-satisfied (drives min-reclaim hysteresis)
    assert.deepStrictEqual(
      stale.state.thresholdsMet.map((t) => t.id),
      ["hard/memory.available"],
    );

    assert.deepStrictEqual(evictedKeys(run.step("20s").report), ["default/a"]);
  });

  test("stats that went back in time are not fresh either (strictly after)", () => {
    const run = scenario({ config, pods }).at("0s", low("5s")).at("10s", low("3s")).run();
    assert.deepStrictEqual(run.step("10s").report.evictions, []);
  });

  test("stats without a time stamp (zero time) are always fresh", () => {
    const run = scenario({ config, pods }).at("0s", low(null)).at("10s", low(null)).run();
    assert.deepStrictEqual(evictedKeys(run.step("0s").report), ["default/a"]);
    assert.deepStrictEqual(evictedKeys(run.step("10s").report), ["default/a"]);
  });
});

describe("stats unavailable", () => {
  const config = { evictionHard: { "memory.available": "100Mi" } };
  const low = node({ memAvailable: "50Mi", memWorkingSet: "3Gi", memTime: "0s" });

  test("no summary: nothing happens, the state is unchanged and the conditions stay reported", () => {
    const run = scenario({ config, pods: [pod("default/a")] })
      .at("0s", low)
      .at("10s", null)
      .at("20s", low /* same sample as at 0s */)
      .run();
    const before = run.step("0s").state;
    const failed = run.step("10s");
    assert.equal(failed.report.ran, false);
    assert.equal(failed.report.statsUnavailable, true);
    assert.deepStrictEqual(failed.report.evictions, []);
    assert.equal(failed.report.actedOn, undefined);
    assert.deepStrictEqual(failed.report.conditions, ["MemoryPressure"]);
    assert.deepStrictEqual(failed.state.thresholdsFirstObservedAt, before.thresholdsFirstObservedAt);
    assert.deepStrictEqual(failed.state.nodeConditionsLastObservedAt, before.nodeConditionsLastObservedAt);
    assert.deepStrictEqual(failed.state.nodeConditions, before.nodeConditions);
    assert.deepStrictEqual(failed.state.thresholdsMet, before.thresholdsMet);
    assert.deepStrictEqual(failed.state.lastObservations, before.lastObservations);
    // the last observations were kept: the 0s sample read again at 20s is stale
    assert.deepStrictEqual(run.step("20s").report.evictions, []);
    assert.deepStrictEqual(run.step("20s").report.conditions, ["MemoryPressure"]);
  });

  test("failed reads do not restart a soft threshold's grace clock", () => {
    const soft = node({ memAvailable: "900Mi", memWorkingSet: "3Gi" });
    const run = scenario({
      config: {
        evictionHard: {},
        evictionSoft: { "memory.available": "1Gi" },
        evictionSoftGracePeriod: { "memory.available": "30s" },
      },
      pods: [pod("default/a")],
    })
      .at("0s", soft)
      .at("10s", null)
      .at("20s", null)
      .at("30s", soft)
      .run();
    assert.deepStrictEqual(evictedKeys(run.step("30s").report), ["default/a"]);
  });

  test("the first run failing to read stats reports nothing", () => {
    const run = scenario({ config }).at("0s", null).run();
    const r = run.step("0s").report;
    assert.equal(r.statsUnavailable, true);
    assert.deepStrictEqual(r.conditions, []);
    assert.equal(r.observations.size, 0);
  });
});
