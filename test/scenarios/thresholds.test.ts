/**
 * The "threshold met" test and minimum-reclaim hysteresis (spec §2.4, §3.3, §15.1, §15.2): strict
 * `<`, percentages in float32, and min reclaim only for thresholds acted on in the previous run.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { evictedKeys, metSignals, runOnce, scenario } from "../support/engine-scenario.js";
import { pod } from "../support/pod-manifests.js";
import { node, podStats } from "../support/summary-builders.js";

const EIGHT_GI = 8n * 1024n ** 3n;

describe("threshold met: strictly less available than the threshold", () => {
  const rows: { available: bigint; met: boolean }[] = [
    { available: 104_857_600n /* exactly 100Mi */, met: false },
    { available: 104_857_599n, met: true },
    { available: 104_857_601n, met: false },
  ];
  for (const row of rows) {
    test(`memory.available<100Mi with ${row.available} available → ${row.met ? "met" : "not met"}`, () => {
      const r = runOnce(
        { config: { evictionHard: { "memory.available": "100Mi" } } },
        node({ memAvailable: row.available, memWorkingSet: "1Gi" }),
      );
      assert.deepStrictEqual(metSignals(r.report), row.met ? ["memory.available"] : []);
      assert.deepStrictEqual(r.report.conditions, row.met ? ["MemoryPressure"] : []);
    });
  }
});

describe("percentage thresholds use float32 maths (§15.1)", () => {
  // 10% is float32 0.100000001490116, so 10% of 8 GiB is 858993472 (not 858993459).
  const rows: { available: bigint; met: boolean }[] = [
    { available: 943_718_400n /* 900Mi */, met: false },
    { available: 858_993_472n, met: false },
    { available: 858_993_471n, met: true },
    { available: 858_993_460n /* above the exact-decimal 10% */, met: true },
  ];
  for (const row of rows) {
    test(`memory.available<10% of 8Gi with ${row.available} available → ${row.met ? "met" : "not met"}`, () => {
      const r = runOnce(
        {
          config: { evictionHard: { "memory.available": "10%" } },
          pods: [pod("default/fresh")],
        },
        // capacity = available + working set = 8 GiB
        node({ memAvailable: row.available, memWorkingSet: EIGHT_GI - row.available }),
      );
      assert.deepStrictEqual(metSignals(r.report), row.met ? ["memory.available"] : []);
      assert.equal(r.report.evictions.length, row.met ? 1 : 0);
    });
  }

  test("the message shows the float32 threshold quantity", () => {
    const r = runOnce(
      { config: { evictionHard: { "memory.available": "10%" } }, pods: [pod("default/fresh")] },
      node({ memAvailable: 858_993_471n, memWorkingSet: EIGHT_GI - 858_993_471n }),
    );
    assert.equal(
      r.report.evictions[0]?.message,
      "The node was low on resource: memory. Threshold quantity: 858993472, available: 858993471. ",
    );
  });

  const others: {
    signal: string;
    value: string;
    spec: (avail: number) => Parameters<typeof node>[0];
    at: number;
  }[] = [
    // 15% of 16 GiB = 2576980480
    {
      signal: "imagefs.available",
      value: "15%",
      spec: (a) => ({ imageFsAvailable: a, imageFsCapacity: "16Gi" }),
      at: 2_576_980_480,
    },
    // 5% of 1,000,000 inodes = 50000
    {
      signal: "nodefs.inodesFree",
      value: "5%",
      spec: (a) => ({ fsInodesFree: a, fsInodes: 1_000_000 }),
      at: 50_000,
    },
  ];
  for (const row of others) {
    test(`${row.signal}<${row.value}: met just below ${row.at}, not met at it`, () => {
      const config = { evictionHard: { [row.signal]: row.value } };
      const below = runOnce({ config, layout: "dedicated" }, node(row.spec(row.at - 1)));
      const equal = runOnce({ config, layout: "dedicated" }, node(row.spec(row.at)));
      assert.deepStrictEqual(metSignals(below.report), [row.signal]);
      assert.deepStrictEqual(metSignals(equal.report), []);
    });
  }
});

describe("minimum reclaim hysteresis (§15.2)", () => {
  // hard nodefs.available<10Gi with minimum reclaim 5Gi; a reclaim that frees nothing.
  const config = {
    evictionHard: { "nodefs.available": "10Gi" },
    evictionMinimumReclaim: { "nodefs.available": "5Gi" },
  };
  const pods = [pod("default/a"), pod("default/b"), pod("default/c")];
  const fs = (available: string) =>
    node({
      fsAvailable: available,
      fsCapacity: "100Gi",
      pods: [
        podStats("default/a", { rootfs: "3Gi" }),
        podStats("default/b", { rootfs: "2Gi" }),
        podStats("default/c", { rootfs: "1Gi" }),
      ],
    });
  const run = scenario({ config, pods, evictedPods: "remove" })
    .at("0s", fs("9Gi"))
    .at("10s", fs("12Gi"))
    .at("20s", fs("15Gi"))
    .at("5m", fs("15Gi"))
    .at("5m10s", fs("15Gi"))
    .run();

  test("run 1: 9Gi < 10Gi is met and acted on", () => {
    const s = run.step("0s");
    assert.deepStrictEqual(metSignals(s.report), ["nodefs.available"]);
    assert.deepStrictEqual(evictedKeys(s.report), ["default/a"]);
    assert.deepStrictEqual(
      s.state.thresholdsMet.map((t) => t.signal),
      ["nodefs.available"],
    );
  });

  test("run 2: 12Gi is above the threshold but below threshold + min reclaim (15Gi): still met, another pod goes", () => {
    const s = run.step("10s");
    assert.deepStrictEqual(metSignals(s.report), ["nodefs.available"]);
    assert.deepStrictEqual(s.report.conditions, ["DiskPressure"]);
    assert.deepStrictEqual(evictedKeys(s.report), ["default/b"]);
    // the first-observed time is kept from run 1
    assert.deepStrictEqual([...s.state.thresholdsFirstObservedAt.values()], [run.step("0s").now]);
  });

  test("run 3: 15Gi is not below 15Gi: resolved, nothing evicted, first-observed forgotten", () => {
    const s = run.step("20s");
    assert.deepStrictEqual(metSignals(s.report), []);
    assert.deepStrictEqual(s.report.evictions, []);
    assert.equal(s.state.thresholdsFirstObservedAt.size, 0);
    assert.deepStrictEqual(s.state.thresholdsMet, []);
    assert.deepStrictEqual(s.report.conditions, ["DiskPressure"]);
  });

  test("DiskPressure is reported until 5m after run 2 (strictly less than the transition period)", () => {
    // run 2 was at 10s: at 5m (4m50s later) still reported, at 5m10s (exactly 5m later) gone
    assert.deepStrictEqual(run.step("5m").report.conditions, ["DiskPressure"]);
    assert.deepStrictEqual(run.step("5m10s").report.conditions, []);
  });

  test("without minimum reclaim, 12Gi resolves the threshold at once", () => {
    const plain = scenario({ config: { evictionHard: { "nodefs.available": "10Gi" } }, pods })
      .at("0s", fs("9Gi"))
      .at("10s", fs("12Gi"))
      .run();
    assert.deepStrictEqual(metSignals(plain.step("10s").report), []);
    assert.deepStrictEqual(plain.step("10s").report.evictions, []);
  });
});

describe("minimum reclaim applies only to thresholds acted on in the previous run", () => {
  test("a soft threshold still inside its grace period gets no hysteresis", () => {
    const run = scenario({
      config: {
        evictionHard: {},
        evictionSoft: { "memory.available": "1Gi" },
        evictionSoftGracePeriod: { "memory.available": "1m" },
        evictionMinimumReclaim: { "memory.available": "500Mi" },
      },
      pods: [pod("default/a")],
    })
      .at("0s", node({ memAvailable: "900Mi", memWorkingSet: "3Gi" }))
      // 1200Mi: above 1Gi but below 1Gi + 500Mi; the soft threshold was never acted on
      .at("10s", node({ memAvailable: "1200Mi", memWorkingSet: "3Gi" }))
      .at("20s", node({ memAvailable: "900Mi", memWorkingSet: "3Gi" }))
      .at("1m10s", node({ memAvailable: "900Mi", memWorkingSet: "3Gi" }))
      .at("1m20s", node({ memAvailable: "900Mi", memWorkingSet: "3Gi" }))
      .run();
    assert.deepStrictEqual(metSignals(run.step("0s").report), ["memory.available"]);
    assert.deepStrictEqual(run.step("0s").state.thresholdsMet, []);
    assert.deepStrictEqual(metSignals(run.step("10s").report), []);
    assert.equal(run.step("10s").state.thresholdsFirstObservedAt.size, 0);
    // the grace clock restarted at 20s: 1m10s is only 50s later, 1m20s is 60s later
    assert.deepStrictEqual(run.step("1m10s").report.evictions, []);
    assert.equal(run.step("1m20s").report.evictions.length, 1);
  });

  test("the same soft threshold, once acted on, stays met until available ≥ threshold + min reclaim", () => {
    const run = scenario({
      config: {
        evictionHard: {},
        evictionSoft: { "memory.available": "1Gi" },
        evictionSoftGracePeriod: { "memory.available": "1m" },
        evictionMinimumReclaim: { "memory.available": "500Mi" },
      },
      pods: [pod("default/a")],
    })
      .at("0s", node({ memAvailable: "900Mi", memWorkingSet: "3Gi" }))
      .at("1m", node({ memAvailable: "900Mi", memWorkingSet: "3Gi" }))
      .at("1m10s", node({ memAvailable: "1200Mi", memWorkingSet: "3Gi" }))
      .at("1m20s", node({ memAvailable: "1524Mi", memWorkingSet: "3Gi" }))
      .run();
    assert.equal(run.step("1m").report.evictions.length, 1);
    assert.deepStrictEqual(metSignals(run.step("1m10s").report), ["memory.available"]);
    assert.equal(run.step("1m10s").report.evictions.length, 1);
    assert.deepStrictEqual(metSignals(run.step("1m20s").report), []);
  });
});
