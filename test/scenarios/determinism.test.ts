/**
 * Determinism and purity: the same inputs give identical reports, and synchronize never mutates the
 * state, config, pods or summary it is given.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { INITIAL_STATE, synchronize, type SyncResult } from "../../src/core/engine/index.js";
import { SCENARIO_START, node, podStats } from "../support/summary-builders.js";
import { decodePods, evictionConfig, scenario } from "../support/engine-scenario.js";
import { emptyDir, pod } from "../support/pod-manifests.js";

const config = {
  evictionHard: { "memory.available": "500Mi", "nodefs.available": "10Gi" },
  evictionSoft: { "memory.available": "1Gi" },
  evictionSoftGracePeriod: { "memory.available": "20s" },
  evictionMinimumReclaim: { "nodefs.available": "2Gi" },
  evictionMaxPodGracePeriod: 15,
};
const manifests = [
  pod("default/a", { requests: { memory: "100Mi" } }),
  pod("default/b", { priority: 5 }),
  pod("default/c", { volumes: [emptyDir("cache", { sizeLimit: "1Gi" })] }),
  pod("kube-system/etcd", { annotations: { "kubernetes.io/config.source": "file" } }),
];
const summary = (mem: string, fs: string, cache: string) =>
  node({
    memAvailable: mem,
    memWorkingSet: "3Gi",
    fsAvailable: fs,
    fsCapacity: "100Gi",
    pods: [
      podStats("default/a", { ws: "300Mi", rootfs: "1Gi" }),
      podStats("default/b", { ws: "200Mi", rootfs: "2Gi" }),
      podStats("default/c", { ws: "10Mi", volumes: { cache } }),
      podStats("kube-system/etcd", { ws: "1Gi" }),
    ],
  });

function build() {
  return scenario({ config, pods: manifests })
    .at("0s", summary("900Mi", "50Gi", "10Mi"))
    .at("10s", summary("900Mi", "9Gi", "10Mi"), { afterReclaim: summary("900Mi", "9Gi", "10Mi") })
    .at("20s", summary("400Mi", "11Gi", "2Gi"))
    .at("30s", summary("400Mi", "11Gi", "10Mi"))
    .at("40s", summary("2Gi", "50Gi", "10Mi"));
}

/** Deeply freezes a value so any mutation throws in strict mode. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

describe("determinism", () => {
  test("the same scenario twice gives identical reports and states", () => {
    const first = build().run();
    const second = build().run();
    assert.deepStrictEqual(
      second.steps.map((s) => s.report),
      first.steps.map((s) => s.report),
    );
    assert.deepStrictEqual(
      second.steps.map((s) => s.state),
      first.steps.map((s) => s.state),
    );
    // the scenario does exercise the engine: pressure, reclaim and local storage all happen
    assert.ok(first.steps.some((s) => s.report.evictions.some((e) => e.kind === "pressure")));
    assert.ok(first.steps.some((s) => s.report.evictions.some((e) => e.kind === "localStorage")));
    assert.ok(first.steps.some((s) => s.report.reclaim !== undefined));
  });

  test("synchronize twice on the same (frozen) state and input: identical results, nothing mutated", () => {
    const cfg = deepFreeze(evictionConfig(config));
    const activePods = deepFreeze(decodePods(manifests));
    const now = SCENARIO_START;
    const input = deepFreeze({
      now,
      summary: summary("400Mi", "50Gi", "10Mi").build(now),
      activePods,
      layout: "single" as const,
    });
    const state = deepFreeze(INITIAL_STATE);
    const a: SyncResult = synchronize(cfg, state, input);
    const b: SyncResult = synchronize(cfg, state, input);
    assert.equal(a.kind, "done");
    assert.equal(b.kind, "done");
    if (a.kind !== "done" || b.kind !== "done") return;
    assert.deepStrictEqual(b.report, a.report);
    assert.deepStrictEqual(b.state, a.state);
    assert.equal(a.report.evictions.length, 1);
    // a second run from the first one's state sees the same sample: stale, nothing evicted
    const before = structuredClone(a.state);
    const again = synchronize(cfg, deepFreeze(a.state), { ...input, now: now + 10_000 });
    assert.equal(again.kind, "done");
    if (again.kind === "done") assert.deepStrictEqual(again.report.evictions, []);
    // Maps are not frozen by Object.freeze: check by value that the engine left them alone
    assert.deepStrictEqual(a.state, before);
    assert.equal(INITIAL_STATE.thresholdsFirstObservedAt.size, 0);
    assert.equal(INITIAL_STATE.nodeConditionsLastObservedAt.size, 0);
  });
});
