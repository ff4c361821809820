/**
 * In-place pod resize (1.35 GA): the eviction manager ranks by the requests the kubelet allocated,
 * not those the spec asks (`getAllocatedPods`), and its messages name the allocated request. The
 * allocation reaches evictd through the Pod's status (`allocatedResources`); spec §4.2, and the
 * "Allocated resources" section of docs/kubelet-semantics.md.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { rankingKeys, runOnce } from "../support/engine-scenario.js";
import { pod, type PodManifest } from "../support/pod-manifests.js";
import { node, podStats } from "../support/summary-builders.js";

const memoryPressure = { evictionHard: { "memory.available": "1Gi" } };
const lowMemory = (...pods: ReturnType<typeof podStats>[]) =>
  node({ memAvailable: "500Mi", memWorkingSet: "3Gi", pods });

/**
 * `manifest` as the API shows it once the kubelet allocated memory to its container `app` and, with
 * pod-level resources, to the pod.
 */
function allocated(manifest: PodManifest, memory: { app?: string; pod?: string }): PodManifest {
  return {
    ...manifest,
    status: {
      phase: "Running",
      containerStatuses: [
        { name: "app", ...(memory.app !== undefined ? { allocatedResources: { memory: memory.app } } : {}) },
      ],
      ...(memory.pod !== undefined ? { allocatedResources: { memory: memory.pod } } : {}),
    },
  };
}

describe("ranking by allocated requests", () => {
  // Both use 500Mi. Their specs say the opposite of their allocations.
  const grown = allocated(pod("default/grown", { requests: { memory: "100Mi" } }), { app: "1Gi" });
  const shrunk = allocated(pod("default/shrunk", { requests: { memory: "1Gi" } }), { app: "100Mi" });
  const stats = [podStats("default/grown", { ws: "500Mi" }), podStats("default/shrunk", { ws: "500Mi" })];

  test("spec 100Mi, allocated 1Gi, using 500Mi: within its request; the reverse exceeds it and goes first", () => {
    const r = runOnce({ config: memoryPressure, pods: [grown, shrunk] }, lowMemory(...stats));
    assert.deepStrictEqual(rankingKeys(r.report), ["default/shrunk", "default/grown"]);
    assert.deepStrictEqual(
      r.report.evictions.map((e) => e.pod.key),
      ["default/shrunk"],
    );
  });

  test("the same pods without an allocation in their status rank by their specs: the other way round", () => {
    const r = runOnce(
      {
        config: memoryPressure,
        pods: [
          pod("default/grown", { requests: { memory: "100Mi" } }),
          pod("default/shrunk", { requests: { memory: "1Gi" } }),
        ],
      },
      lowMemory(...stats),
    );
    assert.deepStrictEqual(rankingKeys(r.report), ["default/grown", "default/shrunk"]);
  });

  test("the eviction message names the allocated request", () => {
    const r = runOnce({ config: memoryPressure, pods: [shrunk] }, lowMemory(stats[1]!));
    assert.equal(
      r.report.evictions[0]?.message,
      "The node was low on resource: memory. Threshold quantity: 1Gi, available: 500Mi. " +
        "Container app was using 500Mi, request is 100Mi, has larger consumption of memory. ",
    );
  });

  test("a pod allocated more than it uses gets no container line, though its spec asks less", () => {
    const r = runOnce({ config: memoryPressure, pods: [grown] }, lowMemory(stats[0]!));
    assert.equal(
      r.report.evictions[0]?.message,
      "The node was low on resource: memory. Threshold quantity: 1Gi, available: 500Mi. ",
    );
  });

  test("pod-level resources: the allocated pod-level request ranks and is named in the pod line", () => {
    const podLevel = allocated(pod("default/pl", { resources: { requests: { memory: "2Gi" } } }), {
      pod: "256Mi",
    });
    const r = runOnce(
      { config: memoryPressure, pods: [podLevel, grown] },
      lowMemory(podStats("default/pl", { ws: "500Mi" }), stats[0]!),
    );
    assert.deepStrictEqual(rankingKeys(r.report), ["default/pl", "default/grown"]);
    assert.match(
      r.report.evictions[0]?.message ?? "",
      /Pod pl was using 500Mi, request is 256Mi, has larger consumption of memory\. /,
    );
  });
});
