/**
 * Threshold grace periods (spec §3.4, §15.3) and the grace period given to evicted pods (§3.9):
 * the override the eviction manager requests and what the pod worker then gives the pod.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { effectiveGracePeriod } from "../../src/core/engine/grace-period.js";
import { evictedKeys, scenario } from "../support/engine-scenario.js";
import { pod } from "../support/pod-manifests.js";
import { node, offsetTime, podStats } from "../support/summary-builders.js";

const low = () =>
  node({ memAvailable: "900Mi", memWorkingSet: "3Gi", pods: [podStats("default/web", { ws: "1Gi" })] });
const fine = () =>
  node({ memAvailable: "1536Mi", memWorkingSet: "3Gi", pods: [podStats("default/web", { ws: "1Gi" })] });

/** soft memory.available<1Gi with a 1m30s grace period and max pod grace 60 (§15.3). */
const SOFT = {
  evictionHard: { "memory.available": "100Mi" },
  evictionSoft: { "memory.available": "1Gi" },
  evictionSoftGracePeriod: { "memory.available": "1m30s" },
  evictionMaxPodGracePeriod: 60,
};

describe("soft thresholds wait for their grace period (§15.3)", () => {
  const steps = ["0s", "10s", "20s", "30s", "40s", "50s", "60s", "70s", "80s", "90s"];
  let s = scenario({ config: SOFT, pods: [pod("default/web", { tgps: 120 })] });
  for (const at of steps) s = s.at(at, low());
  const run = s.run();

  test("MemoryPressure is reported from the first run, before the grace period elapses", () => {
    for (const at of steps) assert.deepStrictEqual(run.step(at).report.conditions, ["MemoryPressure"], at);
  });

  test("no eviction before 90 s; the threshold is reported as awaiting its grace period since t=0", () => {
    for (const at of steps.slice(0, -1)) {
      const r = run.step(at).report;
      assert.deepStrictEqual(r.evictions, [], at);
      assert.equal(r.actedOn, undefined, at);
      assert.deepStrictEqual(
        r.awaitingGrace.map((a) => [a.threshold.id, a.since]),
        [["soft/memory.available", offsetTime("0s")]],
        at,
      );
    }
  });

  test("at 90 s one pod is evicted with override min(60, terminationGracePeriodSeconds 120) = 60", () => {
    const r = run.step("90s").report;
    assert.deepStrictEqual(evictedKeys(r), ["default/web"]);
    assert.equal(r.actedOn?.id, "soft/memory.available");
    assert.equal(r.evictions[0]?.gracePeriodSeconds, 60);
  });

  test("acted on at the first run at or after 90 s", () => {
    const sparse = scenario({ config: SOFT, pods: [pod("default/web")] })
      .at("0s", low())
      .at("40s", low())
      .at("89s", low())
      .at("95s", low())
      .run();
    assert.deepStrictEqual(sparse.step("89s").report.evictions, []);
    assert.deepStrictEqual(evictedKeys(sparse.step("95s").report), ["default/web"]);
  });

  test("a run above the threshold resets the clock", () => {
    const reset = scenario({ config: SOFT, pods: [pod("default/web")] })
      .at("0s", low())
      .at("30s", low())
      .at("60s", fine())
      .at("90s", low())
      .at("170s", low())
      .at("180s", low())
      .run();
    assert.equal(reset.step("60s").state.thresholdsFirstObservedAt.has("soft/memory.available"), false);
    assert.deepStrictEqual(reset.step("90s").report.evictions, []);
    assert.equal(
      reset.step("90s").state.thresholdsFirstObservedAt.get("soft/memory.available"),
      offsetTime("90s"),
    );
    assert.deepStrictEqual(reset.step("170s").report.evictions, []);
    assert.deepStrictEqual(evictedKeys(reset.step("180s").report), ["default/web"]);
  });
});

describe("hard thresholds", () => {
  test("a hard threshold is acted on in the run that first meets it, with a 1 s override", () => {
    const run = scenario({
      config: { evictionHard: { "memory.available": "1Gi" } },
      pods: [pod("default/web")],
    })
      .at("0s", low())
      .run();
    const r = run.step("0s").report;
    assert.deepStrictEqual(evictedKeys(r), ["default/web"]);
    assert.equal(r.evictions[0]?.gracePeriodSeconds, 1);
    assert.deepStrictEqual(r.awaitingGrace, []);
  });

  test("a soft threshold with a 0s grace period behaves as a hard one (1 s override, allocatable copy)", () => {
    const config = {
      evictionHard: {},
      evictionSoft: { "memory.available": "1Gi" },
      evictionSoftGracePeriod: { "memory.available": "0s" },
      evictionMaxPodGracePeriod: 60,
    };
    const run = scenario({ config, pods: [pod("default/web")] })
      .at("0s", low())
      // node memory fine, pod allocatable cgroup low: the allocatable copy of the 0s soft threshold acts
      .at(
        "10s",
        node({ memAvailable: "3Gi", memWorkingSet: "3Gi", allocAvailable: "900Mi", allocWorkingSet: "3Gi" }),
      )
      .run();
    const first = run.step("0s").report;
    assert.deepStrictEqual(evictedKeys(first), ["default/web"]);
    assert.equal(first.evictions[0]?.gracePeriodSeconds, 1);
    const copy = run.config.thresholds.find((t) => t.signal === "allocatableMemory.available");
    assert.equal(copy?.derivedFrom, "memory.available");
    assert.equal(copy?.gracePeriodMs, 0);
    const second = run.step("10s").report;
    assert.equal(second.actedOn?.signal, "allocatableMemory.available");
    assert.equal(second.evictions[0]?.gracePeriodSeconds, 1);
    assert.equal(second.evictions[0]?.signal, "allocatableMemory.available");
  });
});

describe("grace period given to the evicted pod (§3.9)", () => {
  const rows: {
    name: string;
    soft: boolean;
    maxPodGrace?: number;
    tgps?: number;
    requested: number;
    effective: number;
  }[] = [
    { name: "hard threshold", soft: false, requested: 1, effective: 1 },
    {
      name: "soft, evictionMaxPodGracePeriod 0 (default): the pod's own 30 s",
      soft: true,
      requested: 0,
      effective: 30,
    },
    { name: "soft, max 60, TGPS 30 (default)", soft: true, maxPodGrace: 60, requested: 30, effective: 30 },
    { name: "soft, max 60, TGPS 120", soft: true, maxPodGrace: 60, tgps: 120, requested: 60, effective: 60 },
    { name: "soft, max 20, TGPS 30", soft: true, maxPodGrace: 20, requested: 20, effective: 20 },
    {
      name: "soft, negative max: clamped to 1 s, not the pod's own",
      soft: true,
      maxPodGrace: -5,
      requested: -5,
      effective: 1,
    },
    {
      name: "soft, max 10, TGPS 0: at least 1 s",
      soft: true,
      maxPodGrace: 10,
      tgps: 0,
      requested: 0,
      effective: 1,
    },
  ];
  for (const row of rows) {
    test(`${row.name}: requested ${row.requested}, effective ${row.effective}`, () => {
      const config = row.soft
        ? {
            evictionHard: {},
            evictionSoft: { "memory.available": "1Gi" },
            evictionSoftGracePeriod: { "memory.available": "10s" },
            ...(row.maxPodGrace !== undefined ? { evictionMaxPodGracePeriod: row.maxPodGrace } : {}),
          }
        : { evictionHard: { "memory.available": "1Gi" } };
      const run = scenario({
        config,
        pods: [pod("default/web", row.tgps !== undefined ? { tgps: row.tgps } : {})],
      })
        .at("0s", low())
        .at("10s", low())
        .run();
      const eviction = run.step("10s").report.evictions[0];
      assert.ok(eviction !== undefined, "expected an eviction at 10s");
      assert.equal(eviction.gracePeriodSeconds, row.requested);
      assert.equal(effectiveGracePeriod(eviction.gracePeriodSeconds, eviction.pod), row.effective);
    });
  }

  test("a second eviction of a terminating pod: a smaller override shortens, a larger one does not", () => {
    const [web] = scenario({ pods: [pod("default/web", { tgps: 30 })] }).run().pods;
    assert.ok(web !== undefined);
    assert.equal(effectiveGracePeriod(1, web, 30), 1);
    assert.equal(effectiveGracePeriod(60, web, 30), 30);
    assert.equal(effectiveGracePeriod(25, web, 20), 20);
    // An override of 0 is smaller, replaces the grace in force, and the 0 then falls back to the
    // pod's own terminationGracePeriodSeconds (mainline calculateEffectiveGracePeriod, §3.9 steps).
    assert.equal(effectiveGracePeriod(0, web, 20), 30);
  });
});
