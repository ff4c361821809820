/**
 * Local storage capacity isolation evictions (spec §5, §15.7): emptyDir sizeLimit, the pod
 * ephemeral-storage limit and container ephemeral-storage limits, checked every run whatever the
 * node pressure; several pods per run, 1 s grace, no annotations, no DisruptionTarget condition.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Eviction } from "../../src/core/engine/index.js";
import type { FilesystemLayout } from "../../src/core/model.js";
import { evictedKeys, refusedKeys, runOnce } from "../support/engine-scenario.js";
import { emptyDir, pod, type PodManifest } from "../support/pod-manifests.js";
import { node, podStats, type PodStatsBuilder } from "../support/summary-builders.js";

/** No thresholds met: local storage checks run on their own. */
const config = { evictionHard: { "memory.available": "100Mi" } };
const calm = (...pods: PodStatsBuilder[]) => node({ memAvailable: "3Gi", memWorkingSet: "1Gi", pods });

function only(
  pods: readonly PodManifest[],
  stats: PodStatsBuilder[],
  layout: FilesystemLayout = "single",
): readonly Eviction[] {
  return runOnce({ config, pods, layout }, calm(...stats)).report.evictions;
}

function assertLocalStorage(e: Eviction | undefined, signal: string, message: string): void {
  assert.ok(e !== undefined, "expected an eviction");
  assert.equal(e.kind, "localStorage");
  assert.equal(e.signal, signal);
  assert.equal(e.message, message);
  assert.equal(e.gracePeriodSeconds, 1);
  assert.deepStrictEqual(e.annotations, {});
  assert.equal(e.condition, undefined);
}

describe("emptyDir sizeLimit (emptydirfs.limit)", () => {
  test("1.5Gi used in a 1Gi emptyDir → evicted without any node pressure (§15.7)", () => {
    const r = runOnce(
      { config, pods: [pod("default/web", { volumes: [emptyDir("cache", { sizeLimit: "1Gi" })] })] },
      calm(podStats("default/web", { volumes: { cache: "1536Mi" } })),
    );
    assert.deepStrictEqual(r.report.thresholdsMet, []);
    assert.deepStrictEqual(r.report.conditions, []);
    assert.equal(r.report.actedOn, undefined);
    assertLocalStorage(
      r.report.evictions[0],
      "emptydirfs.limit",
      'Usage of EmptyDir volume "cache" exceeds the limit "1Gi". ',
    );
  });

  test("usage equal to the limit is not over it (strict >)", () => {
    const pods = [pod("default/web", { volumes: [emptyDir("cache", { sizeLimit: "1Gi" })] })];
    assert.deepStrictEqual(only(pods, [podStats("default/web", { volumes: { cache: "1Gi" } })]), []);
  });

  test("any medium: a memory-backed emptyDir over its limit counts", () => {
    const pods = [
      pod("default/web", { volumes: [emptyDir("shm", { sizeLimit: "64Mi", medium: "Memory" })] }),
    ];
    const e = only(pods, [podStats("default/web", { volumes: { shm: "100Mi" } })]);
    assertLocalStorage(e[0], "emptydirfs.limit", 'Usage of EmptyDir volume "shm" exceeds the limit "64Mi". ');
  });

  test("the first violating volume in spec order is the one reported", () => {
    const pods = [
      pod("default/web", {
        volumes: [
          emptyDir("ok", { sizeLimit: "1Gi" }),
          emptyDir("b", { sizeLimit: "1Mi" }),
          emptyDir("a", { sizeLimit: "1Gi" }),
        ],
      }),
    ];
    const e = only(pods, [podStats("default/web", { volumes: { a: "2Gi", ok: "10Mi", b: "2Mi" } })]);
    assert.equal(e.length, 1);
    assert.equal(e[0]?.message, 'Usage of EmptyDir volume "b" exceeds the limit "1Mi". ');
  });

  test("an emptyDir without sizeLimit is never over it", () => {
    const pods = [pod("default/web", { volumes: [emptyDir("cache")] })];
    assert.deepStrictEqual(only(pods, [podStats("default/web", { volumes: { cache: "100Gi" } })]), []);
  });
});

describe("pod ephemeral-storage limit (ephemeralpodfs.limit)", () => {
  const twoLimits = [
    pod("default/web", {
      containers: {
        app: { limits: { "ephemeral-storage": "1Gi" } },
        side: { limits: { "ephemeral-storage": "512Mi" } },
      },
    }),
  ];

  test("usage over the sum of the declared container limits → evicted", () => {
    const e = only(twoLimits, [
      podStats("default/web", { containers: { app: {}, side: {} }, ephemeral: "1600Mi" }),
    ]);
    assertLocalStorage(
      e[0],
      "ephemeralpodfs.limit",
      "Pod ephemeral local storage usage exceeds the total limit of containers 1536Mi. ",
    );
  });

  test("usage equal to the limit is not over it", () => {
    assert.deepStrictEqual(
      only(twoLimits, [podStats("default/web", { containers: { app: {}, side: {} }, ephemeral: "1536Mi" })]),
      [],
    );
  });

  test("no declared limit → the check is skipped", () => {
    assert.deepStrictEqual(only([pod("default/web")], [podStats("default/web", { ephemeral: "500Gi" })]), []);
  });

  test("a declared limit of 0 evicts on any usage", () => {
    const pods = [pod("default/web", { limits: { "ephemeral-storage": "0" } })];
    const e = only(pods, [podStats("default/web", { ephemeral: 1 })]);
    assertLocalStorage(
      e[0],
      "ephemeralpodfs.limit",
      "Pod ephemeral local storage usage exceeds the total limit of containers 0. ",
    );
    assert.deepStrictEqual(only(pods, [podStats("default/web", { ephemeral: 0 })]), []);
  });

  test("the emptyDir check runs first and ends the pod's checks", () => {
    const pods = [
      pod("default/web", {
        limits: { "ephemeral-storage": "1Gi" },
        volumes: [emptyDir("cache", { sizeLimit: "100Mi" })],
      }),
    ];
    const e = only(pods, [podStats("default/web", { volumes: { cache: "200Mi" }, ephemeral: "2Gi" })]);
    assert.equal(e.length, 1);
    assert.equal(e[0]?.signal, "emptydirfs.limit");
  });
});

describe("container ephemeral-storage limit (ephemeralcontainerfs.limit)", () => {
  const pods = [pod("default/web", { limits: { "ephemeral-storage": "100Mi" } })];
  const stats = [podStats("default/web", { rootfs: "80Mi", logs: "30Mi" })];

  test("single layout: writable layer + logs (110Mi) over 100Mi → evicted", () => {
    const e = only(pods, stats, "single");
    assertLocalStorage(
      e[0],
      "ephemeralcontainerfs.limit",
      'Container app exceeded its local ephemeral storage limit "100Mi". ',
    );
  });

  for (const layout of ["dedicated", "split"] as const) {
    test(`${layout} layout: only logs count (30Mi) → not evicted`, () => {
      assert.deepStrictEqual(only(pods, stats, layout), []);
    });
  }

  test(`dedicated layout: logs alone over the limit → evicted`, () => {
    const e = only(pods, [podStats("default/web", { rootfs: "1Mi", logs: "101Mi" })], "dedicated");
    assert.equal(e[0]?.signal, "ephemeralcontainerfs.limit");
  });

  test("sidecars are checked", () => {
    const e = only(
      [
        pod("default/web", {
          containers: { app: {} },
          initContainers: { proxy: { limits: { "ephemeral-storage": "10Mi" }, restartPolicy: "Always" } },
        }),
      ],
      [podStats("default/web", { containers: { app: { logs: "1Mi" }, proxy: { logs: "20Mi" } } })],
    );
    assertLocalStorage(
      e[0],
      "ephemeralcontainerfs.limit",
      'Container proxy exceeded its local ephemeral storage limit "10Mi". ',
    );
  });

  test("plain init containers are not checked", () => {
    const e = only(
      [
        pod("default/web", {
          containers: { app: {} },
          initContainers: { setup: { limits: { "ephemeral-storage": "10Mi" } } },
        }),
      ],
      [podStats("default/web", { containers: { app: { logs: "1Mi" }, setup: { logs: "20Mi" } } })],
    );
    assert.deepStrictEqual(e, []);
  });

  test("the first violating container in stats order decides", () => {
    const e = only(
      [
        pod("default/web", {
          containers: {
            a: { limits: { "ephemeral-storage": "10Mi" } },
            b: { limits: { "ephemeral-storage": "10Mi" } },
          },
        }),
      ],
      [podStats("default/web", { containers: { b: { logs: "20Mi" }, a: { logs: "30Mi" } } })],
    );
    assert.equal(e.length, 1);
    assert.equal(e[0]?.message, 'Container b exceeded its local ephemeral storage limit "10Mi". ');
  });
});

describe("local storage evictions in a run", () => {
  const violating = (name: string) =>
    pod(`default/${name}`, { volumes: [emptyDir("cache", { sizeLimit: "1Gi" })] });
  const over = (name: string) => podStats(`default/${name}`, { ws: "100Mi", volumes: { cache: "2Gi" } });

  test("several pods in one run, in active-pod order; pods without stats are skipped", () => {
    const e = only(
      [violating("z"), violating("nostats"), violating("a"), pod("default/fine")],
      [over("a"), over("z"), podStats("default/fine", { ws: "1Gi" })],
    );
    assert.deepStrictEqual(
      e.map((x) => x.pod.key),
      ["default/z", "default/a"],
    );
  });

  test("they pre-empt pressure handling in that run; conditions are still reported", () => {
    const r = runOnce(
      { config, pods: [violating("a"), violating("b"), pod("default/hog")] },
      node({
        memAvailable: "50Mi",
        memWorkingSet: "3Gi",
        pods: [over("a"), over("b"), podStats("default/hog", { ws: "2Gi" })],
      }),
    );
    assert.deepStrictEqual(evictedKeys(r.report), ["default/a", "default/b"]);
    assert.ok(r.report.evictions.every((e) => e.kind === "localStorage"));
    assert.equal(r.report.actedOn, undefined);
    assert.equal(r.report.ranking, undefined);
    assert.equal(r.report.nodeEvent, undefined);
    assert.deepStrictEqual(r.report.conditions, ["MemoryPressure"]);
  });

  test("critical pods are exempt; a refused critical pod does not stop pressure handling", () => {
    const staticPod = pod("kube-system/etcd", {
      annotations: { "kubernetes.io/config.source": "file" },
      volumes: [emptyDir("cache", { sizeLimit: "1Gi" })],
    });
    const r = runOnce(
      { config, pods: [staticPod, pod("default/hog")] },
      node({
        memAvailable: "50Mi",
        memWorkingSet: "3Gi",
        pods: [
          podStats("kube-system/etcd", { ws: "10Mi", volumes: { cache: "2Gi" } }),
          podStats("default/hog", { ws: "2Gi" }),
        ],
      }),
    );
    assert.ok(r.report.refused.some((x) => x.pod.key === "kube-system/etcd" && x.kind === "localStorage"));
    assert.deepStrictEqual(evictedKeys(r.report), ["default/hog"]);
    assert.equal(r.report.evictions[0]?.kind, "pressure");
  });

  test("a refused critical pod: its next check still runs (and is refused as well)", () => {
    const staticPod = pod("kube-system/etcd", {
      annotations: { "kubernetes.io/config.mirror": "x" },
      limits: { "ephemeral-storage": "1Gi" },
      volumes: [emptyDir("cache", { sizeLimit: "1Gi" })],
    });
    const r = runOnce(
      { config, pods: [staticPod] },
      calm(podStats("kube-system/etcd", { volumes: { cache: "2Gi" }, ephemeral: "3Gi" })),
    );
    assert.deepStrictEqual(r.report.evictions, []);
    assert.deepStrictEqual(refusedKeys(r.report), ["kube-system/etcd", "kube-system/etcd"]);
  });

  test("localStorageCapacityIsolation false → no local storage evictions", () => {
    const r = runOnce(
      { config: { ...config, localStorageCapacityIsolation: false }, pods: [violating("a")] },
      calm(over("a")),
    );
    assert.deepStrictEqual(r.report.evictions, []);
  });
});
