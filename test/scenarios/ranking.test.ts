/**
 * Ranking (spec §4): memory (exceeds requests → priority → usage − request), disk per layout with
 * the fs-type table of §4.4, the inode quirk, imagefs in the split layout, PID (priority → process
 * count), pods without stats first, pod-level and sidecar requests; one pod evicted per run.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { FilesystemLayout } from "../../src/core/model.js";
import { evictedKeys, rankingKeys, runOnce, scenario } from "../support/engine-scenario.js";
import { emptyDir, pod, volume, type VolumeSource } from "../support/pod-manifests.js";
import { node, podStats, type PodStatsBuilder } from "../support/summary-builders.js";

const memoryPressure = { evictionHard: { "memory.available": "1Gi" } };
const lowMemory = (...pods: PodStatsBuilder[]) => node({ memAvailable: "500Mi", memWorkingSet: "3Gi", pods });

describe("memory ranking: exceeds requests → priority → usage − request", () => {
  const pods = [
    pod("default/b", { requests: { memory: "1Gi" } }),
    pod("default/c", { requests: { memory: "100Mi" }, priority: 100 }),
    pod("default/a"),
    pod("default/f", { priority: 1000 }),
    pod("default/e", { requests: { memory: "2Gi" }, priority: -10 }),
    pod("default/d"),
  ];
  const stats = [
    podStats("default/a", { ws: "100Mi" }), // exceeds, p0, +100Mi
    podStats("default/b", { ws: "500Mi" }), // within request, p0, −524Mi
    podStats("default/c", { ws: "300Mi" }), // exceeds, p100, +200Mi
    podStats("default/d", { ws: "50Mi" }), // exceeds, p0, +50Mi
    podStats("default/e", { ws: "1Gi" }), // within request, p−10, −1Gi
    // default/f has no stats
  ];

  test("full order, pods without stats first whatever their priority", () => {
    const r = runOnce({ config: memoryPressure, pods }, lowMemory(...stats));
    assert.deepStrictEqual(rankingKeys(r.report), [
      "default/f",
      "default/a",
      "default/d",
      "default/c",
      "default/e",
      "default/b",
    ]);
  });

  test("one pod per run: successive runs evict the next pod in the order", () => {
    const run = scenario({ config: memoryPressure, pods, evictedPods: "remove" })
      .at("0s", lowMemory(...stats))
      .at("10s", lowMemory(...stats))
      .at("20s", lowMemory(...stats))
      .run();
    assert.deepStrictEqual(
      run.steps.map((s) => evictedKeys(s.report)),
      [["default/f"], ["default/a"], ["default/d"]],
    );
  });

  test("pod-level memory request (spec.resources) is the request ranking uses", () => {
    const r = runOnce(
      {
        config: memoryPressure,
        pods: [pod("default/g", { resources: { requests: { memory: "1Gi" } } }), pod("default/h")],
      },
      lowMemory(podStats("default/g", { ws: "600Mi" }), podStats("default/h", { ws: "10Mi" })),
    );
    // g is within its 1Gi pod-level request; counted by containers (0) it would exceed by 600Mi
    assert.deepStrictEqual(rankingKeys(r.report), ["default/h", "default/g"]);
  });

  test("sidecar (restartable init container) requests add up; a plain init container counts as a peak", () => {
    const r = runOnce(
      {
        config: memoryPressure,
        pods: [
          pod("default/s", {
            containers: { app: { requests: { memory: "100Mi" } } },
            initContainers: { proxy: { requests: { memory: "400Mi" }, restartPolicy: "Always" } },
          }),
          pod("default/u", {
            containers: { app: { requests: { memory: "100Mi" } } },
            initContainers: { setup: { requests: { memory: "400Mi" } } },
          }),
          pod("default/t"),
        ],
      },
      lowMemory(
        podStats("default/s", {
          podWs: "300Mi",
          containers: { app: { ws: "200Mi" }, proxy: { ws: "100Mi" } },
        }),
        podStats("default/u", { ws: "300Mi" }),
        podStats("default/t", { ws: "10Mi" }),
      ),
    );
    // s: request 100Mi + 400Mi = 500Mi (300Mi − 500Mi); u: max(100Mi, 400Mi) = 400Mi (300Mi − 400Mi)
    assert.deepStrictEqual(rankingKeys(r.report), ["default/t", "default/u", "default/s"]);
  });
});

describe("disk ranking per layout (§4.4)", () => {
  const pods = [pod("default/p1"), pod("default/p2"), pod("default/p3", { volumes: [emptyDir("data")] })];
  const stats = [
    podStats("default/p1", { rootfs: "1000Mi", logs: "10Mi", rootfsInodes: 100 }),
    podStats("default/p2", { rootfs: "50Mi", logs: "600Mi", rootfsInodes: 5, logsInodes: 300 }),
    podStats("default/p3", {
      rootfs: "20Mi",
      logs: "30Mi",
      rootfsInodes: 1,
      volumes: { data: { used: "800Mi", inodes: 200 } },
    }),
  ];
  const summary = node({
    fsAvailable: "5Gi",
    fsCapacity: "100Gi",
    fsInodesFree: 500,
    fsInodes: 1_000_000,
    imageFsAvailable: "5Gi",
    imageFsCapacity: "100Gi",
    imageFsInodesFree: 500,
    imageFsInodes: 1_000_000,
    pods: stats,
  });
  const rows: { layout: FilesystemLayout; signal: string; value: string; order: string[]; why: string }[] = [
    {
      layout: "single",
      signal: "nodefs.available",
      value: "10Gi",
      order: ["p1", "p3", "p2"],
      why: "root+logs+volumes: 1010, 850, 650",
    },
    {
      layout: "single",
      signal: "imagefs.available",
      value: "10Gi",
      order: ["p1", "p3", "p2"],
      why: "root+logs+volumes",
    },
    {
      layout: "dedicated",
      signal: "nodefs.available",
      value: "10Gi",
      order: ["p3", "p2", "p1"],
      why: "logs+volumes: 830, 600, 10",
    },
    {
      layout: "dedicated",
      signal: "imagefs.available",
      value: "10Gi",
      order: ["p1", "p2", "p3"],
      why: "root: 1000, 50, 20",
    },
    {
      layout: "split",
      signal: "nodefs.available",
      value: "10Gi",
      order: ["p1", "p3", "p2"],
      why: "logs+volumes+root",
    },
    {
      layout: "single",
      signal: "nodefs.inodesFree",
      value: "1k",
      order: ["p2", "p3", "p1"],
      why: "inodes: 305, 201, 100",
    },
    {
      layout: "dedicated",
      signal: "nodefs.inodesFree",
      value: "1k",
      order: ["p2", "p3", "p1"],
      why: "logs+volumes inodes: 300, 200, 0",
    },
    {
      layout: "dedicated",
      signal: "imagefs.inodesFree",
      value: "1k",
      order: ["p1", "p2", "p3"],
      why: "root inodes: 100, 5, 1",
    },
  ];
  for (const row of rows) {
    test(`${row.layout} ${row.signal}: ${row.order.join(", ")} (${row.why})`, () => {
      const r = runOnce(
        { config: { evictionHard: { [row.signal]: row.value } }, pods, layout: row.layout },
        summary,
      );
      assert.equal(r.report.actedOn?.signal, row.signal);
      assert.deepStrictEqual(
        rankingKeys(r.report),
        row.order.map((n) => `default/${n}`),
      );
    });
  }

  test("which volume kinds count as local storage (hostPath, configMap, gitRepo, disk emptyDir)", () => {
    const counted: VolumeSource[] = ["hostPath", "configMap", "gitRepo", "emptyDir"];
    const excluded: VolumeSource[] = ["secret", "projected", "downwardAPI", "persistentVolumeClaim"];
    const kinds = [...counted, ...excluded];
    const volumePods = kinds.map((k) => pod(`default/${k.toLowerCase()}`, { volumes: [volume("v", k)] }));
    const memoryEmptyDir = pod("default/tmpfs", { volumes: [emptyDir("v", { medium: "Memory" })] });
    const noSpec = pod("default/nospec"); // stats for a volume the spec does not declare
    const reference = pod("default/ref");
    const r = runOnce(
      {
        config: { evictionHard: { "nodefs.available": "10Gi" } },
        pods: [reference, memoryEmptyDir, noSpec, ...volumePods],
        layout: "dedicated", // nodefs ranks by logs + local volumes
      },
      node({
        fsAvailable: "5Gi",
        fsCapacity: "100Gi",
        pods: [
          podStats("default/ref", { logs: "50Mi" }),
          podStats("default/tmpfs", { volumes: { v: "100Mi" } }),
          podStats("default/nospec", { volumes: { v: "100Mi" } }),
          ...kinds.map((k) => podStats(`default/${k.toLowerCase()}`, { volumes: { v: "100Mi" } })),
        ],
      }),
    );
    const order = rankingKeys(r.report) ?? [];
    const at = (key: string) => order.indexOf(key);
    for (const k of counted) assert.ok(at(`default/${k.toLowerCase()}`) < at("default/ref"), `${k} counts`);
    for (const k of excluded)
      assert.ok(at(`default/${k.toLowerCase()}`) > at("default/ref"), `${k} does not count`);
    assert.ok(at("default/tmpfs") > at("default/ref"), "memory-backed emptyDir does not count");
    assert.ok(at("default/nospec") > at("default/ref"), "undeclared volume does not count");
  });

  test("usage above the ephemeral-storage request comes first; then priority", () => {
    const r = runOnce(
      {
        config: { evictionHard: { "nodefs.available": "10Gi" } },
        pods: [
          pod("default/q1", { requests: { "ephemeral-storage": "2Gi" } }),
          pod("default/q2", { priority: 10 }),
          pod("default/q3"),
        ],
      },
      node({
        fsAvailable: "5Gi",
        fsCapacity: "100Gi",
        pods: [
          podStats("default/q1", { rootfs: "1Gi" }), // within its request
          podStats("default/q2", { rootfs: "500Mi" }), // exceeds, priority 10
          podStats("default/q3", { rootfs: "100Mi" }), // exceeds, priority 0
        ],
      }),
    );
    assert.deepStrictEqual(rankingKeys(r.report), ["default/q3", "default/q2", "default/q1"]);
  });

  test("inode quirk: inode counts minus ephemeral-storage request bytes; a storage request sinks", () => {
    const r = runOnce(
      {
        config: { evictionHard: { "nodefs.inodesFree": "1k" } },
        pods: [
          pod("default/i2", { requests: { "ephemeral-storage": "1Gi" } }),
          pod("default/i3"),
          pod("default/i4", { requests: { "ephemeral-storage": "1Ki" } }),
          pod("default/i1"),
        ],
      },
      node({
        fsInodesFree: 500,
        fsInodes: 1_000_000,
        pods: [
          podStats("default/i1", { rootfsInodes: 1000 }), // 1000 − 0
          podStats("default/i2", { rootfsInodes: 5000 }), // 5000 − 1073741824
          podStats("default/i3", { rootfs: "1Gi" }), // no inodes: does not "exceed"
          podStats("default/i4", { rootfsInodes: 2000 }), // 2000 − 1024 = 976
        ],
      }),
    );
    assert.deepStrictEqual(rankingKeys(r.report), ["default/i1", "default/i4", "default/i2", "default/i3"]);
  });

  test("imagefs in the split layout measures nothing: priority, then smallest ephemeral-storage request", () => {
    const r = runOnce(
      {
        config: { evictionHard: { "imagefs.available": "10Gi" } },
        layout: "split",
        pods: [
          pod("default/j1", { requests: { "ephemeral-storage": "1Gi" } }),
          pod("default/j2", { requests: { "ephemeral-storage": "100Mi" } }),
          pod("default/j3"),
          pod("default/j4", { requests: { "ephemeral-storage": "5Gi" }, priority: -1 }),
        ],
      },
      node({
        imageFsAvailable: "5Gi",
        imageFsCapacity: "100Gi",
        pods: [
          podStats("default/j1", { rootfs: "50Gi", logs: "1Gi" }),
          podStats("default/j2", { rootfs: "1Mi" }),
          podStats("default/j3", { rootfs: "1Mi" }),
          podStats("default/j4", { rootfs: "1Mi" }),
        ],
      }),
    );
    assert.deepStrictEqual(r.reclaimRequested, ["images"]);
    assert.deepStrictEqual(rankingKeys(r.report), ["default/j4", "default/j3", "default/j2", "default/j1"]);
  });

  test("pods without stats come first under disk pressure too", () => {
    const r = runOnce(
      {
        config: { evictionHard: { "nodefs.available": "10Gi" } },
        pods: [pod("default/big"), pod("default/new", { priority: 5 })],
      },
      node({ fsAvailable: "5Gi", fsCapacity: "100Gi", pods: [podStats("default/big", { rootfs: "10Gi" })] }),
    );
    assert.deepStrictEqual(rankingKeys(r.report), ["default/new", "default/big"]);
  });
});

describe("PID ranking: priority → process count", () => {
  test("priority decides first; pods without stats lead only within their priority", () => {
    const r = runOnce(
      {
        config: { evictionHard: { "pid.available": "1k" } },
        pods: [
          pod("default/k5", { priority: 10 }),
          pod("default/k1"),
          pod("default/k4"),
          pod("default/k2"),
          pod("default/k3", { priority: -5 }),
        ],
      },
      node({
        maxPid: 10_000,
        curProc: 9_500,
        pods: [
          podStats("default/k1", { processes: 5 }),
          podStats("default/k2", { processes: 50 }),
          podStats("default/k3", { processes: 1 }),
          podStats("default/k5", { processes: 1000 }),
        ],
      }),
    );
    assert.deepStrictEqual(rankingKeys(r.report), [
      "default/k3",
      "default/k4",
      "default/k2",
      "default/k1",
      "default/k5",
    ]);
    assert.equal(
      r.report.evictions[0]?.message,
      "The node was low on resource: pids. Threshold quantity: 1k, available: 500. ",
    );
  });
});
