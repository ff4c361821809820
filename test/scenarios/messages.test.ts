/**
 * Pressure-eviction messages, event annotations and the DisruptionTarget condition, character for
 * character (spec §6.1, §6.2, §15.8).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Eviction } from "../../src/core/engine/index.js";
import { runOnce, type ScenarioSpec } from "../support/engine-scenario.js";
import { pod } from "../support/pod-manifests.js";
import { node, podStats, type NodeStatsSpec, type SummarySpec } from "../support/summary-builders.js";

function evictionOf(spec: ScenarioSpec, summary: SummarySpec): Eviction {
  const e = runOnce(spec, summary).report.evictions[0];
  assert.ok(e !== undefined, "expected an eviction");
  return e;
}

const hardMemory = { evictionHard: { "memory.available": "100Mi" } };
const lowMemory = (spec: NodeStatsSpec = {}) => node({ memAvailable: "50Mi", memWorkingSet: "3Gi", ...spec });

describe("memory messages", () => {
  test("the §6.1 example, its annotations and the DisruptionTarget condition", () => {
    const e = evictionOf(
      { config: hardMemory, pods: [pod("default/web", { requests: { memory: "128Mi" } })] },
      // 4 GiB node: 92148Ki available
      node({
        memAvailable: "92148Ki",
        memWorkingSet: 4n * 1024n ** 3n - 92148n * 1024n,
        pods: [podStats("default/web", { ws: "500Mi" })],
      }),
    );
    const message =
      "The node was low on resource: memory. Threshold quantity: 100Mi, available: 92148Ki. " +
      "Container app was using 500Mi, request is 128Mi, has larger consumption of memory. ";
    assert.equal(e.message, message);
    assert.deepStrictEqual(e.annotations, {
      offending_containers: "app",
      offending_containers_usage: "500Mi",
      starved_resource: "memory",
    });
    assert.deepStrictEqual(e.condition, {
      type: "DisruptionTarget",
      status: "True",
      reason: "TerminationByKubelet",
      message,
    });
    assert.equal(e.kind, "pressure");
    assert.equal(e.signal, "memory.available");
  });

  test("a pod without stats: threshold line only, no annotations at all", () => {
    const e = evictionOf({ config: hardMemory, pods: [pod("default/new")] }, lowMemory());
    assert.equal(
      e.message,
      "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. ",
    );
    assert.deepStrictEqual(e.annotations, {});
    assert.equal(e.condition?.message, e.message);
  });

  test("containers within their request get no line; the annotation lists are empty", () => {
    const e = evictionOf(
      { config: hardMemory, pods: [pod("default/web", { requests: { memory: "1Gi" } })] },
      lowMemory({ pods: [podStats("default/web", { ws: "500Mi" })] }),
    );
    assert.equal(
      e.message,
      "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. ",
    );
    assert.deepStrictEqual(e.annotations, {
      offending_containers: "",
      offending_containers_usage: "",
      starved_resource: "memory",
    });
  });

  test("lines follow the stats order; sidecars match init containers; unknown stats entries are skipped", () => {
    const e = evictionOf(
      {
        config: hardMemory,
        pods: [
          pod("default/web", {
            containers: { a: { requests: { memory: "10Mi" } }, b: {} },
            initContainers: { proxy: { requests: { memory: "1Mi" }, restartPolicy: "Always" } },
          }),
        ],
      },
      lowMemory({
        pods: [
          podStats("default/web", {
            containers: { b: { ws: "20Mi" }, gone: { ws: "1Gi" }, proxy: { ws: "2Mi" }, a: { ws: "1536Mi" } },
          }),
        ],
      }),
    );
    assert.equal(
      e.message,
      "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. " +
        "Container b was using 20Mi, request is 0, has larger consumption of memory. " +
        "Container proxy was using 2Mi, request is 1Mi, has larger consumption of memory. " +
        "Container a was using 1536Mi, request is 10Mi, has larger consumption of memory. ",
    );
    assert.deepStrictEqual(e.annotations, {
      offending_containers: "b,proxy,a",
      offending_containers_usage: "20Mi,2Mi,1536Mi",
      starved_resource: "memory",
    });
  });

  test("pod-level memory request: a pod line (unconditional) and the offending_pod annotations", () => {
    const spec = {
      config: hardMemory,
      pods: [pod("default/plr", { resources: { requests: { memory: "256Mi" } } })],
    };
    const over = evictionOf(spec, lowMemory({ pods: [podStats("default/plr", { ws: "300Mi" })] }));
    assert.equal(
      over.message,
      "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. " +
        "Pod plr was using 300Mi, request is 256Mi, has larger consumption of memory. " +
        "Container app was using 300Mi, request is 0, has larger consumption of memory. ",
    );
    assert.deepStrictEqual(over.annotations, {
      offending_pod: "plr",
      offending_pod_usage: "300Mi",
      offending_containers: "app",
      offending_containers_usage: "300Mi",
      starved_resource: "memory",
    });
    const under = evictionOf(spec, lowMemory({ pods: [podStats("default/plr", { ws: "100Mi" })] }));
    assert.ok(
      under.message.includes("Pod plr was using 100Mi, request is 256Mi, has larger consumption of memory. "),
    );
  });

  test("pod-level line when the pod's memory stats carry no working set: usage 0", () => {
    const e = evictionOf(
      { config: hardMemory, pods: [pod("default/plr", { resources: { requests: { memory: "256Mi" } } })] },
      lowMemory({ pods: [podStats("default/plr", { podWs: null, containers: { app: {} } })] }),
    );
    assert.equal(
      e.message,
      "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. " +
        "Pod plr was using 0, request is 256Mi, has larger consumption of memory. ",
    );
    assert.equal(e.annotations["offending_pod_usage"], "0");
  });

  test("no pod line when the pod has no memory stats at all", () => {
    const e = evictionOf(
      { config: hardMemory, pods: [pod("default/plr", { resources: { requests: { memory: "256Mi" } } })] },
      lowMemory({ pods: [podStats("default/plr", { containers: { app: {} } })] }),
    );
    assert.equal(
      e.message,
      "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. ",
    );
    assert.equal(e.annotations["offending_pod"], undefined);
  });

  test("threshold info from allocatableMemory.available: its quantity and the pods cgroup's available", () => {
    const e = evictionOf(
      { config: hardMemory, pods: [pod("default/web")] },
      node({ memAvailable: "3Gi", memWorkingSet: "1Gi", allocAvailable: "50Mi", allocWorkingSet: "3Gi" }),
    );
    assert.equal(e.signal, "allocatableMemory.available");
    assert.equal(
      e.message,
      "The node was low on resource: memory. Threshold quantity: 100Mi, available: 50Mi. ",
    );
  });
});

describe("disk messages", () => {
  test("inode message (§15.8): BinarySI threshold, DecimalSI available, no container lines", () => {
    const e = evictionOf(
      {
        config: { evictionHard: { "nodefs.inodesFree": "5%" } },
        pods: [pod("default/web")],
        layout: "dedicated",
      },
      node({
        fsInodesFree: 49_000,
        fsInodes: 1_000_000,
        pods: [podStats("default/web", { rootfs: "1Gi", logs: "1Gi", logsInodes: 5000 })],
      }),
    );
    assert.equal(
      e.message,
      "The node was low on resource: inodes. Threshold quantity: 50000, available: 49k. ",
    );
    assert.deepStrictEqual(e.annotations, {
      offending_containers: "",
      offending_containers_usage: "",
      starved_resource: "inodes",
    });
  });

  test("ephemeral-storage: rootfs + logs per container (both needed), whatever the layout", () => {
    const e = evictionOf(
      {
        config: { evictionHard: { "nodefs.available": "10Gi" } },
        layout: "dedicated",
        pods: [
          pod("default/web", {
            containers: { app: { requests: { "ephemeral-storage": "100Mi" } }, side: {}, log: {} },
          }),
        ],
      },
      node({
        fsAvailable: "9Gi",
        fsCapacity: "100Gi",
        pods: [
          podStats("default/web", {
            containers: {
              app: { rootfs: "300Mi", logs: "200Mi" },
              side: { rootfs: "1Gi" },
              log: { rootfs: 0, logs: "5Mi" },
            },
          }),
        ],
      }),
    );
    assert.equal(
      e.message,
      "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 9Gi. " +
        "Container app was using 500Mi, request is 100Mi, has larger consumption of ephemeral-storage. " +
        "Container log was using 5Mi, request is 0, has larger consumption of ephemeral-storage. ",
    );
    assert.deepStrictEqual(e.annotations, {
      offending_containers: "app,log",
      offending_containers_usage: "500Mi,5Mi",
      starved_resource: "ephemeral-storage",
    });
  });

  test("a percentage threshold is shown resolved against the current capacity, without minimum reclaim", () => {
    const e = evictionOf(
      {
        config: {
          evictionHard: { "imagefs.available": "15%" },
          evictionMinimumReclaim: { "imagefs.available": "1Gi" },
        },
        layout: "dedicated",
        pods: [pod("default/web")],
      },
      node({ imageFsAvailable: "2Gi", imageFsCapacity: "16Gi" }),
    );
    // 15% of 16 GiB in float32 maths is 2576980480, not a multiple of 1024: printed as a plain integer
    assert.equal(
      e.message,
      "The node was low on resource: ephemeral-storage. Threshold quantity: 2576980480, available: 2Gi. ",
    );
  });

  test("no pod-level line under disk pressure", () => {
    const e = evictionOf(
      {
        config: { evictionHard: { "nodefs.available": "10Gi" } },
        layout: "dedicated",
        pods: [pod("default/plr", { resources: { requests: { memory: "256Mi" } } })],
      },
      node({ fsAvailable: "9Gi", fsCapacity: "100Gi", pods: [podStats("default/plr", { ws: "1Gi" })] }),
    );
    assert.equal(
      e.message,
      "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 9Gi. ",
    );
    assert.equal(e.annotations["offending_pod"], undefined);
  });
});
