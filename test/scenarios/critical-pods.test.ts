/**
 * Critical pods are ranked like any other and refused at eviction time (spec §3.10, §7.3, §15.9):
 * static (kubernetes.io/config.source other than api), mirror (kubernetes.io/config.mirror) and
 * priority ≥ 2000000000.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { evictedKeys, rankingKeys, refusedKeys, runOnce } from "../support/engine-scenario.js";
import { pod } from "../support/pod-manifests.js";
import { node, podStats } from "../support/summary-builders.js";

const config = { evictionHard: { "memory.available": "1Gi" } };
const critical = [
  pod("kube-system/static", { annotations: { "kubernetes.io/config.source": "file" } }),
  pod("kube-system/mirror", { annotations: { "kubernetes.io/config.mirror": "abc123" } }),
  pod("kube-system/node-critical", { priorityClassName: "system-node-critical" }),
  pod("kube-system/cluster-critical", { priority: 2_000_000_000 }),
];
const criticalStats = [
  podStats("kube-system/static", { ws: "500Mi" }),
  podStats("kube-system/mirror", { ws: "400Mi" }),
  podStats("kube-system/node-critical", { ws: "300Mi" }),
  podStats("kube-system/cluster-critical", { ws: "200Mi" }),
];

describe("critical pods are never evicted", () => {
  test("ranked first but refused; the next pod is evicted (§15.9)", () => {
    const r = runOnce(
      { config, pods: [pod("default/besteffort"), ...critical] },
      node({
        memAvailable: "500Mi",
        memWorkingSet: "3Gi",
        // the BestEffort pod uses nothing, so it does not exceed its (zero) request and ranks last
        pods: [...criticalStats, podStats("default/besteffort", { ws: 0 })],
      }),
    );
    assert.deepStrictEqual(rankingKeys(r.report), [
      "kube-system/static",
      "kube-system/mirror",
      "kube-system/cluster-critical",
      "kube-system/node-critical",
      "default/besteffort",
    ]);
    assert.deepStrictEqual(refusedKeys(r.report), [
      "kube-system/static",
      "kube-system/mirror",
      "kube-system/cluster-critical",
      "kube-system/node-critical",
    ]);
    assert.ok(r.report.refused.every((x) => x.reason === "critical" && x.kind === "pressure"));
    assert.deepStrictEqual(evictedKeys(r.report), ["default/besteffort"]);
  });

  test("all active pods critical → nothing evicted", () => {
    const r = runOnce(
      { config, pods: critical },
      node({ memAvailable: "500Mi", memWorkingSet: "3Gi", pods: criticalStats }),
    );
    assert.deepStrictEqual(r.report.evictions, []);
    assert.equal(r.report.refused.length, 4);
    assert.equal(r.report.outcome, "unable to evict any pods from the node");
    assert.deepStrictEqual(r.report.conditions, ["MemoryPressure"]);
  });

  test("config.source api is not a static pod; priority 1999999999 is not critical", () => {
    const r = runOnce(
      {
        config,
        pods: [
          pod("default/api-source", { annotations: { "kubernetes.io/config.source": "api" } }),
          pod("default/high", { priority: 1_999_999_999 }),
        ],
      },
      node({
        memAvailable: "500Mi",
        memWorkingSet: "3Gi",
        pods: [podStats("default/api-source", { ws: "100Mi" }), podStats("default/high", { ws: "100Mi" })],
      }),
    );
    assert.deepStrictEqual(r.report.refused, []);
    assert.deepStrictEqual(evictedKeys(r.report), ["default/api-source"]);
  });
});
