/**
 * Derived thresholds: containerfs mirrors of nodefs (single, split) or imagefs (dedicated), with the
 * first-synchronize quirk (spec §1.6), and the allocatableMemory.available copy of hard
 * memory.available thresholds read from the `pods` system container (§1.4 step 7, §2.2, §15.5).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { FilesystemLayout } from "../../src/core/model.js";
import { formatQuantity } from "../../src/core/quantity.js";
import { evictedKeys, metSignals, rankingKeys, runOnce, scenario } from "../support/engine-scenario.js";
import { emptyDir, pod } from "../support/pod-manifests.js";
import { node, podStats, type NodeStatsSpec } from "../support/summary-builders.js";

const pods = [pod("default/p1"), pod("default/p2"), pod("default/p3", { volumes: [emptyDir("data")] })];
const podUsage = [
  podStats("default/p1", { rootfs: "1000Mi", logs: "10Mi" }),
  podStats("default/p2", { rootfs: "50Mi", logs: "600Mi" }),
  podStats("default/p3", { rootfs: "20Mi", logs: "30Mi", volumes: { data: "800Mi" } }),
];
const disk = (spec: NodeStatsSpec) =>
  node({
    fsAvailable: "50Gi",
    fsCapacity: "100Gi",
    imageFsAvailable: "50Gi",
    imageFsCapacity: "100Gi",
    containerFsAvailable: "50Gi",
    containerFsCapacity: "100Gi",
    pods: podUsage,
    ...spec,
  });

describe("containerfs thresholds mirror nodefs or imagefs by layout", () => {
  const config = { evictionHard: { "nodefs.available": "1Gi", "imagefs.available": "20Gi" } };
  const rows: {
    layout: FilesystemLayout;
    met: boolean;
    from?: string;
    value?: string;
    reclaim?: string[];
    order?: string[];
  }[] = [
    // containerfs at 10Gi: below imagefs' 20Gi, above nodefs' 1Gi
    { layout: "single", met: false },
    { layout: "split", met: false },
    {
      layout: "dedicated",
      met: true,
      from: "imagefs.available",
      value: "20Gi",
      reclaim: ["containers", "images"],
      order: ["p1", "p2", "p3"], // as imagefs in the dedicated layout: writable layers only
    },
  ];
  for (const row of rows) {
    test(`${row.layout}: containerfs.available at 10Gi is ${row.met ? "met" : "not met"}`, () => {
      const run = scenario({ config, pods, layout: row.layout })
        .at("0s", disk({ containerFsAvailable: "10Gi" }))
        .at("10s", disk({ containerFsAvailable: "10Gi" }))
        .run();
      // first synchronize: the list as configured, without mirrors
      assert.deepStrictEqual(metSignals(run.step("0s").report), []);
      const r = run.step("10s");
      assert.deepStrictEqual(metSignals(r.report), row.met ? ["containerfs.available"] : []);
      if (!row.met) return;
      const acted = r.report.actedOn;
      assert.equal(acted?.signal, "containerfs.available");
      assert.equal(acted?.derivedFrom, row.from);
      assert.equal(
        acted?.value?.kind === "quantity" ? formatQuantity(acted.value.quantity) : undefined,
        row.value,
      );
      assert.deepStrictEqual(r.reclaimRequested, row.reclaim);
      assert.deepStrictEqual(
        rankingKeys(r.report),
        row.order?.map((n) => `default/${n}`),
      );
    });
  }

  const nodefsRows: { layout: FilesystemLayout; reclaim: string[]; order: string[] }[] = [
    { layout: "single", reclaim: ["containers", "images"], order: ["p1", "p3", "p2"] },
    { layout: "split", reclaim: ["containers"], order: ["p1", "p3", "p2"] },
  ];
  for (const row of nodefsRows) {
    test(`${row.layout}: containerfs mirrors nodefs (reclaim and ranking as nodefs)`, () => {
      const run = scenario({
        config: { evictionHard: { "nodefs.available": "10Gi", "imagefs.available": "1Gi" } },
        pods,
        layout: row.layout,
      })
        .at("0s", disk({ containerFsAvailable: "5Gi" }))
        .at("10s", disk({ containerFsAvailable: "5Gi" }))
        .run();
      const r = run.step("10s");
      assert.equal(r.report.actedOn?.signal, "containerfs.available");
      assert.equal(r.report.actedOn?.derivedFrom, "nodefs.available");
      assert.deepStrictEqual(r.report.conditions, ["DiskPressure"]);
      assert.deepStrictEqual(r.reclaimRequested, row.reclaim);
      assert.deepStrictEqual(
        rankingKeys(r.report),
        row.order.map((n) => `default/${n}`),
      );
    });
  }

  test("four mirrors are stored; those without a source threshold are inert", () => {
    const run = scenario({ config: { evictionHard: { "nodefs.available": "10Gi" } } })
      .at("0s", disk({}))
      .run();
    const mirrors = (run.step("0s").state.thresholds ?? [])
      .filter((t) => t.signal.startsWith("containerfs."))
      .map((t) => ({
        signal: t.signal,
        hard: t.gracePeriodMs === 0,
        operator: t.operator,
        from: t.derivedFrom,
      }));
    assert.deepStrictEqual(mirrors, [
      { signal: "containerfs.available", hard: true, operator: "LessThan", from: "nodefs.available" },
      { signal: "containerfs.available", hard: true, operator: "", from: undefined },
      { signal: "containerfs.inodesFree", hard: true, operator: "", from: undefined },
      { signal: "containerfs.inodesFree", hard: true, operator: "", from: undefined },
    ]);
  });

  test("a soft nodefs threshold gives a soft mirror with its grace period (clock from the second run)", () => {
    const config = {
      evictionHard: {},
      evictionSoft: { "nodefs.available": "10Gi" },
      evictionSoftGracePeriod: { "nodefs.available": "1m" },
    };
    const low = disk({ containerFsAvailable: "5Gi" });
    const run = scenario({ config, pods }).at("0s", low).at("10s", low).at("1m", low).at("1m10s", low).run();
    assert.deepStrictEqual(run.step("0s").report.conditions, []);
    assert.deepStrictEqual(run.step("10s").report.conditions, ["DiskPressure"]);
    assert.deepStrictEqual(run.step("1m").report.evictions, []);
    assert.equal(run.step("1m10s").report.actedOn?.signal, "containerfs.available");
    assert.equal(run.step("1m10s").report.evictions.length, 1);
  });

  test("of two hard nodefs thresholds (hard map, and soft map with 0s grace) the last one is mirrored", () => {
    // UpdateContainerFsThresholds keeps the last match while scanning the list (hard, then soft)
    const config = {
      evictionHard: { "nodefs.available": "10Gi" },
      evictionSoft: { "nodefs.available": "5Gi" },
      evictionSoftGracePeriod: { "nodefs.available": "0s" },
    };
    const run = scenario({ config })
      .at("0s", disk({ containerFsAvailable: "7Gi" }))
      .at("10s", disk({ containerFsAvailable: "7Gi" }))
      .at("20s", disk({ containerFsAvailable: "4Gi" }))
      .run();
    assert.deepStrictEqual(metSignals(run.step("10s").report), []);
    assert.deepStrictEqual(metSignals(run.step("20s").report), ["containerfs.available"]);
  });
});

describe("user containerfs thresholds and the first-run quirk", () => {
  const config = { evictionHard: { "containerfs.available": "100Gi", "nodefs.available": "10Gi" } };

  test("the first synchronize evaluates the configured list, user containerfs threshold included", () => {
    const r = runOnce({ config, pods }, disk({ containerFsAvailable: "50Gi" }));
    assert.deepStrictEqual(
      r.report.thresholdsMet.map((t) => t.id),
      ["hard/containerfs.available"],
    );
    assert.deepStrictEqual(r.report.conditions, ["DiskPressure"]);
  });

  test("from the second synchronize on it is overwritten by the mirror", () => {
    const run = scenario({ config, pods })
      .at("0s", disk({ containerFsAvailable: "200Gi" }))
      .at("10s", disk({ containerFsAvailable: "50Gi" }))
      .at("20s", disk({ containerFsAvailable: "9Gi" }))
      .run();
    assert.deepStrictEqual(metSignals(run.step("10s").report), []);
    assert.deepStrictEqual(metSignals(run.step("20s").report), ["containerfs.available"]);
    const stored = (run.step("0s").state.thresholds ?? []).filter(
      (t) => t.signal === "containerfs.available",
    );
    assert.equal(stored[0]?.derivedFrom, "nodefs.available");
  });

  test("the first run's reclaim check already uses the list with mirrors", () => {
    const spec = { config: { evictionHard: { "nodefs.available": "10Gi" } }, pods };
    const withLowContainerFs = runOnce(spec, disk({ fsAvailable: "5Gi", containerFsAvailable: "5Gi" }), {
      afterReclaim: disk({ fsAvailable: "20Gi", containerFsAvailable: "5Gi" }),
    });
    assert.deepStrictEqual(metSignals(withLowContainerFs.report), ["nodefs.available"]);
    assert.equal(withLowContainerFs.report.reclaim?.sufficient, false);
    assert.equal(withLowContainerFs.report.evictions.length, 1);
    const withFineContainerFs = runOnce(spec, disk({ fsAvailable: "5Gi" }), {
      afterReclaim: disk({ fsAvailable: "20Gi" }),
    });
    assert.equal(withFineContainerFs.report.reclaim?.sufficient, true);
  });
});

describe("allocatableMemory.available", () => {
  test("the default config copies the hard memory threshold (enforceNodeAllocatable: [pods])", () => {
    const run = scenario({}).run();
    const copy = run.config.thresholds.filter((t) => t.signal === "allocatableMemory.available");
    assert.equal(copy.length, 1);
    assert.equal(copy[0]?.derivedFrom, "memory.available");
    assert.equal(copy[0]?.gracePeriodMs, 0);
    assert.equal(
      copy[0]?.value?.kind === "quantity" ? formatQuantity(copy[0].value.quantity) : undefined,
      "100Mi",
    );
  });

  // §15.5: kube- and system-reserved 1Gi each on a 16Gi node: the pods cgroup holds 14Gi
  const rows: { ws: bigint; met: boolean }[] = [
    { ws: 14n * 1024n ** 3n - 100n * 1024n ** 2n, met: false },
    { ws: 14n * 1024n ** 3n - 100n * 1024n ** 2n + 1n, met: true },
  ];
  for (const row of rows) {
    test(`pods cgroup working set ${row.ws} of 14Gi → ${row.met ? "met" : "not met"}`, () => {
      const r = runOnce(
        { pods: [pod("default/web")] },
        node({
          memAvailable: "3Gi",
          memWorkingSet: "13Gi",
          allocAvailable: 14n * 1024n ** 3n - row.ws,
          allocWorkingSet: row.ws,
          pods: [podStats("default/web", { ws: "13Gi" })],
        }),
      );
      assert.deepStrictEqual(metSignals(r.report), row.met ? ["allocatableMemory.available"] : []);
      assert.deepStrictEqual(r.report.conditions, row.met ? ["MemoryPressure"] : []);
      assert.deepStrictEqual(evictedKeys(r.report), row.met ? ["default/web"] : []);
      if (row.met) assert.equal(r.report.evictions[0]?.signal, "allocatableMemory.available");
    });
  }

  test("without `pods` in enforceNodeAllocatable there is no copy", () => {
    const r = runOnce(
      { config: { evictionHard: { "memory.available": "100Mi" }, enforceNodeAllocatable: ["none"] } },
      node({ memAvailable: "3Gi", memWorkingSet: "1Gi", allocAvailable: "50Mi", allocWorkingSet: "3Gi" }),
    );
    assert.deepStrictEqual(r.report.thresholdsMet, []);
    assert.ok(r.report.observations.has("allocatableMemory.available"));
  });

  test("a soft memory threshold is not copied", () => {
    const r = runOnce(
      {
        config: {
          evictionHard: {},
          evictionSoft: { "memory.available": "1Gi" },
          evictionSoftGracePeriod: { "memory.available": "1m" },
        },
      },
      node({ memAvailable: "3Gi", memWorkingSet: "1Gi", allocAvailable: "50Mi", allocWorkingSet: "3Gi" }),
    );
    assert.deepStrictEqual(r.report.thresholdsMet, []);
  });
});
