/**
 * Which threshold is acted on (spec §3.7, §15.4): memory thresholds first; of a hard and a soft
 * threshold on the same signal, the hard one (it decides the 1 s kill grace).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { evictedKeys, metSignals, runOnce, scenario } from "../support/engine-scenario.js";
import { pod } from "../support/pod-manifests.js";
import { node, podStats } from "../support/summary-builders.js";

const pods = [pod("default/a")];

describe("memory thresholds are acted on first", () => {
  test("memory and nodefs both met (nodefs configured first) → memory", () => {
    const r = runOnce(
      { config: { evictionHard: { "nodefs.available": "10Gi", "memory.available": "100Mi" } }, pods },
      node({
        fsAvailable: "5Gi",
        fsCapacity: "100Gi",
        memAvailable: "50Mi",
        memWorkingSet: "3Gi",
        pods: [podStats("default/a", { ws: "1Gi", rootfs: "1Gi" })],
      }),
    );
    assert.deepStrictEqual(metSignals(r.report).sort(), ["memory.available", "nodefs.available"]);
    assert.equal(r.report.actedOn?.signal, "memory.available");
    assert.deepStrictEqual(r.report.nodeEvent, {
      reason: "EvictionThresholdMet",
      message: "Attempting to reclaim memory",
    });
    // memory has no node-level reclaim: the engine goes straight to eviction
    assert.equal(r.reclaimRequested, undefined);
    assert.equal(r.report.reclaim, undefined);
    assert.equal(r.report.evictions[0]?.signal, "memory.available");
    assert.ok(r.report.evictions[0]?.message.startsWith("The node was low on resource: memory. "));
    assert.deepStrictEqual(r.report.conditions, ["MemoryPressure", "DiskPressure"]);
  });

  test("allocatableMemory.available and pid both met → allocatableMemory.available", () => {
    const r = runOnce(
      { config: { evictionHard: { "pid.available": "1k", "memory.available": "100Mi" } }, pods },
      node({
        maxPid: 10_000,
        curProc: 9_500,
        memAvailable: "3Gi",
        memWorkingSet: "3Gi",
        allocAvailable: "50Mi",
        allocWorkingSet: "3Gi",
      }),
    );
    assert.equal(r.report.actedOn?.signal, "allocatableMemory.available");
    assert.equal(r.report.nodeEvent?.message, "Attempting to reclaim memory");
  });

  test("only a disk threshold met → the disk one, with its resource in the node event", () => {
    const r = runOnce(
      {
        config: { evictionHard: { "nodefs.available": "10Gi", "memory.available": "100Mi" } },
        pods,
        layout: "dedicated",
      },
      node({ fsAvailable: "5Gi", fsCapacity: "100Gi", memAvailable: "3Gi", memWorkingSet: "3Gi" }),
    );
    assert.equal(r.report.actedOn?.signal, "nodefs.available");
    assert.deepStrictEqual(r.report.nodeEvent, {
      reason: "EvictionThresholdMet",
      message: "Attempting to reclaim ephemeral-storage",
    });
  });
});

describe("hard and soft thresholds on the same signal (§15.4)", () => {
  const config = {
    evictionHard: { "memory.available": "500Mi" },
    evictionSoft: { "memory.available": "1Gi" },
    evictionSoftGracePeriod: { "memory.available": "1m" },
    evictionMaxPodGracePeriod: 20,
  };
  const mem = (available: string) =>
    node({ memAvailable: available, memWorkingSet: "3Gi", pods: [podStats("default/a", { ws: "1Gi" })] });

  test("both met: the hard one is acted on at once (1 s), the soft one waits", () => {
    const r = scenario({ config, pods }).at("0s", mem("400Mi")).run().step("0s").report;
    assert.deepStrictEqual(
      r.thresholdsMet.map((t) => t.id),
      ["hard/memory.available", "soft/memory.available"],
    );
    assert.equal(r.actedOn?.id, "hard/memory.available");
    assert.equal(r.evictions[0]?.gracePeriodSeconds, 1);
    assert.deepStrictEqual(
      r.awaitingGrace.map((a) => a.threshold.id),
      ["soft/memory.available"],
    );
  });

  test("both met and both past their grace period: still the hard one", () => {
    const run = scenario({ config, pods }).at("0s", mem("400Mi")).at("1m", mem("400Mi")).run();
    const r = run.step("1m").report;
    assert.deepStrictEqual(r.awaitingGrace, []);
    assert.equal(r.actedOn?.id, "hard/memory.available");
    assert.equal(r.evictions[0]?.gracePeriodSeconds, 1);
  });

  test("only the soft one met once its grace period is over: soft, with min(max pod grace, TGPS)", () => {
    const run = scenario({ config, pods }).at("0s", mem("400Mi")).at("1m", mem("700Mi")).run();
    const r = run.step("1m").report;
    assert.deepStrictEqual(metSignals(r), ["memory.available"]);
    assert.equal(r.actedOn?.id, "soft/memory.available");
    assert.deepStrictEqual(evictedKeys(r), ["default/a"]);
    assert.equal(r.evictions[0]?.gracePeriodSeconds, 20);
  });
});
