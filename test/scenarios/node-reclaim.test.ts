/**
 * Node-level reclaim (spec §3.8): which functions run per signal and filesystem layout, and when a
 * reclaim counts as sufficient (every configured threshold evaluated after it, grace ignored, min
 * reclaim enforced).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { ReclaimFunction } from "../../src/core/engine/index.js";
import type { FilesystemLayout } from "../../src/core/model.js";
import { evictedKeys, runOnce } from "../support/engine-scenario.js";
import { pod } from "../support/pod-manifests.js";
import { node, podStats, type NodeStatsSpec } from "../support/summary-builders.js";

const pods = [pod("default/a")];
const withPod = (spec: NodeStatsSpec) =>
  node({
    ...spec,
    pods: [podStats("default/a", { ws: "1Gi", rootfs: "1Gi", logs: "1Mi", rootfsInodes: 100 })],
  });

describe("reclaim functions per signal and layout", () => {
  const low: Record<string, NodeStatsSpec> = {
    "nodefs.available": { fsAvailable: "5Gi", fsCapacity: "100Gi" },
    "nodefs.inodesFree": { fsInodesFree: 500, fsInodes: 1_000_000 },
    "imagefs.available": { imageFsAvailable: "5Gi", imageFsCapacity: "100Gi" },
    "imagefs.inodesFree": { imageFsInodesFree: 500, imageFsInodes: 1_000_000 },
    "memory.available": { memAvailable: "50Mi", memWorkingSet: "3Gi" },
    "pid.available": { maxPid: 10_000, curProc: 9_500 },
  };
  const value: Record<string, string> = {
    "nodefs.available": "10Gi",
    "nodefs.inodesFree": "1k",
    "imagefs.available": "10Gi",
    "imagefs.inodesFree": "1k",
    "memory.available": "100Mi",
    "pid.available": "1k",
  };
  const rows: { layout: FilesystemLayout; signal: string; functions: ReclaimFunction[] }[] = [
    { layout: "single", signal: "nodefs.available", functions: ["containers", "images"] },
    { layout: "single", signal: "nodefs.inodesFree", functions: ["containers", "images"] },
    { layout: "single", signal: "imagefs.available", functions: ["containers", "images"] },
    { layout: "single", signal: "imagefs.inodesFree", functions: ["containers", "images"] },
    { layout: "dedicated", signal: "nodefs.available", functions: [] },
    { layout: "dedicated", signal: "nodefs.inodesFree", functions: [] },
    { layout: "dedicated", signal: "imagefs.available", functions: ["containers", "images"] },
    { layout: "dedicated", signal: "imagefs.inodesFree", functions: ["containers", "images"] },
    { layout: "split", signal: "nodefs.available", functions: ["containers"] },
    { layout: "split", signal: "nodefs.inodesFree", functions: ["containers"] },
    { layout: "split", signal: "imagefs.available", functions: ["images"] },
    { layout: "split", signal: "imagefs.inodesFree", functions: ["images"] },
    { layout: "single", signal: "memory.available", functions: [] },
    { layout: "split", signal: "memory.available", functions: [] },
    { layout: "dedicated", signal: "pid.available", functions: [] },
  ];
  for (const row of rows) {
    const name =
      row.functions.length === 0 ? "no reclaim, straight to eviction" : row.functions.join(" then ");
    test(`${row.layout}: ${row.signal} → ${name}`, () => {
      const r = runOnce(
        { config: { evictionHard: { [row.signal]: value[row.signal] } }, pods, layout: row.layout },
        withPod(low[row.signal] ?? {}),
      );
      assert.equal(r.report.actedOn?.signal, row.signal);
      if (row.functions.length === 0) {
        assert.equal(r.reclaimRequested, undefined);
        assert.equal(r.report.reclaim, undefined);
      } else {
        assert.deepStrictEqual(r.reclaimRequested, row.functions);
        // the reclaim freed nothing (same summary after it): insufficient
        assert.deepStrictEqual(r.report.reclaim, { ran: row.functions, sufficient: false });
      }
      assert.deepStrictEqual(evictedKeys(r.report), ["default/a"]);
    });
  }
});

describe("reclaim sufficiency", () => {
  const hardNodefs = { evictionHard: { "nodefs.available": "10Gi" } };
  const fs = (available: string, extra: NodeStatsSpec = {}) =>
    withPod({ fsAvailable: available, fsCapacity: "100Gi", ...extra });

  test("enough space freed → no eviction; the node event is still emitted", () => {
    const r = runOnce({ config: hardNodefs, pods }, fs("9Gi"), { afterReclaim: fs("20Gi") });
    assert.deepStrictEqual(r.report.reclaim, { ran: ["containers", "images"], sufficient: true });
    assert.deepStrictEqual(r.report.evictions, []);
    assert.equal(r.report.ranking, undefined);
    assert.deepStrictEqual(r.report.nodeEvent, {
      reason: "EvictionThresholdMet",
      message: "Attempting to reclaim ephemeral-storage",
    });
    assert.equal(r.report.outcome, "able to reduce resource pressure without evicting pods.");
    assert.deepStrictEqual(r.report.conditions, ["DiskPressure"]);
  });

  test("an unrelated threshold met after reclaim (a soft one inside its grace period) makes it insufficient", () => {
    const config = {
      evictionHard: { "nodefs.available": "10Gi" },
      evictionSoft: { "memory.available": "1Gi" },
      evictionSoftGracePeriod: { "memory.available": "5m" },
    };
    const mem = { memAvailable: "900Mi", memWorkingSet: "3Gi" };
    const r = runOnce({ config, pods }, fs("9Gi", mem), { afterReclaim: fs("20Gi", mem) });
    assert.equal(r.report.actedOn?.signal, "nodefs.available");
    assert.deepStrictEqual(r.report.reclaim, { ran: ["containers", "images"], sufficient: false });
    assert.deepStrictEqual(evictedKeys(r.report), ["default/a"]);
    assert.equal(r.report.evictions[0]?.signal, "nodefs.available");
  });

  test("the same reclaim is sufficient when that soft threshold is not met afterwards", () => {
    const config = {
      evictionHard: { "nodefs.available": "10Gi" },
      evictionSoft: { "memory.available": "1Gi" },
      evictionSoftGracePeriod: { "memory.available": "5m" },
    };
    const r = runOnce({ config, pods }, fs("9Gi", { memAvailable: "900Mi", memWorkingSet: "3Gi" }), {
      afterReclaim: fs("20Gi", { memAvailable: "2Gi", memWorkingSet: "3Gi" }),
    });
    assert.equal(r.report.reclaim?.sufficient, true);
  });

  const minReclaim = { ...hardNodefs, evictionMinimumReclaim: { "nodefs.available": "5Gi" } };
  const rows: { after: string; sufficient: boolean }[] = [
    { after: "12Gi", sufficient: false },
    { after: "15Gi", sufficient: true },
  ];
  for (const row of rows) {
    test(`min reclaim 5Gi: ${row.after} available after reclaim → ${row.sufficient ? "sufficient" : "insufficient"}`, () => {
      const r = runOnce({ config: minReclaim, pods }, fs("9Gi"), { afterReclaim: fs(row.after) });
      assert.equal(r.report.reclaim?.sufficient, row.sufficient);
      assert.equal(r.report.evictions.length, row.sufficient ? 0 : 1);
    });
  }

  test("reclaim errors are reported and the check still runs", () => {
    const errors = { containers: "rpc error: code = Unavailable", images: "image is in use" };
    const ok = runOnce({ config: hardNodefs, pods }, fs("9Gi"), {
      afterReclaim: fs("20Gi"),
      reclaimErrors: errors,
    });
    assert.deepStrictEqual(ok.report.reclaim, { ran: ["containers", "images"], sufficient: true, errors });
    assert.deepStrictEqual(ok.report.evictions, []);
    const still = runOnce({ config: hardNodefs, pods }, fs("9Gi"), {
      afterReclaim: fs("9Gi"),
      reclaimErrors: errors,
    });
    assert.deepStrictEqual(still.report.reclaim, {
      ran: ["containers", "images"],
      sufficient: false,
      errors,
    });
    assert.deepStrictEqual(evictedKeys(still.report), ["default/a"]);
  });

  test("no summary after reclaim → insufficient", () => {
    const r = runOnce({ config: hardNodefs, pods }, fs("9Gi"), { afterReclaim: null });
    assert.deepStrictEqual(r.report.reclaim, { ran: ["containers", "images"], sufficient: false });
    assert.deepStrictEqual(evictedKeys(r.report), ["default/a"]);
  });

  test("ranking after reclaim uses the pre-reclaim pod stats", () => {
    const before = node({
      fsAvailable: "9Gi",
      fsCapacity: "100Gi",
      pods: [podStats("default/a", { rootfs: "1Gi" }), podStats("default/b", { rootfs: "2Gi" })],
    });
    const after = node({
      fsAvailable: "9Gi",
      fsCapacity: "100Gi",
      pods: [podStats("default/a", { rootfs: "5Gi" }), podStats("default/b", { rootfs: "1Mi" })],
    });
    const r = runOnce({ config: hardNodefs, pods: [pod("default/a"), pod("default/b")] }, before, {
      afterReclaim: after,
    });
    assert.deepStrictEqual(evictedKeys(r.report), ["default/b"]);
  });
});
