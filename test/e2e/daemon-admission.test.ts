/**
 * `evictd run` end to end: pods dropped into the manifest dir while the node reports MemoryPressure
 * go through the kubelet's eviction admission (kubelet-semantics.md §7): BestEffort pods are
 * rejected unless they tolerate the memory-pressure taint or are critical; Burstable pods are
 * admitted. A soft threshold with a long grace period keeps the condition up without evicting.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  condition,
  E2E_SKIP,
  holdMemory,
  IDLE,
  podManifest,
  podStatus,
  stopAndCheckClean,
  TestNode,
  type Daemon,
  type PodStatus,
  type StatusDoc,
  scaled,
} from "../harness/node-harness.js";

const REJECTED = "Pod was rejected: The node had condition: [MemoryPressure]. ";

describe("evictd run: admission under memory pressure", { skip: E2E_SKIP }, () => {
  let node: TestNode | undefined;
  let daemon: Daemon | undefined;
  let final: StatusDoc | undefined;

  before(
    async () => {
      node = await TestNode.create("admit");
      await node.writeNodeFile({
        capacity: { memory: "512Mi" },
        config: {
          evictionHard: { "memory.available": "50Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
          evictionSoft: { "memory.available": "200Mi" },
          evictionSoftGracePeriod: { "memory.available": "60s" },
        },
      });
      // Available ≈ 145Mi: under the soft 200Mi (MemoryPressure, grace 60 s), above the hard 50Mi.
      await node.addPod(
        podManifest({
          name: "hog",
          containers: [{ name: "hog", command: holdMemory(360), requests: { memory: "16Mi" } }],
        }),
      );
      daemon = await node.start();
      const d = daemon;
      await d.waitForStatus(
        "MemoryPressure",
        (s) => (condition(s, "MemoryPressure") === "True" ? s : undefined),
        15_000,
      );

      await node.addPod(podManifest({ name: "besteffort", containers: [{ name: "idle", command: IDLE }] }));
      await node.addPod(
        podManifest({
          name: "burstable",
          containers: [{ name: "idle", command: IDLE, requests: { memory: "8Mi" } }],
        }),
      );
      await node.addPod(
        podManifest({
          name: "tolerant",
          tolerations: [
            { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
          ],
          containers: [{ name: "idle", command: IDLE }],
        }),
      );
      await node.addPod(
        podManifest({
          name: "static",
          namespace: "kube-system",
          annotations: { "kubernetes.io/config.source": "file" },
          containers: [{ name: "idle", command: IDLE }],
        }),
      );
      const settled = (s: StatusDoc): boolean =>
        ["besteffort", "burstable", "tolerant"].every((n) => {
          const p = podStatus(s, `default/${n}`);
          return p !== undefined && p.phase !== "Pending";
        }) && podStatus(s, "kube-system/static")?.phase === "Running";
      final = await d.waitForStatus(
        "the four new pods admitted or rejected",
        (s) => (settled(s) ? s : undefined),
        15_000,
      );
    },
    { timeout: scaled(45_000) },
  );

  after(async () => {
    try {
      if (node !== undefined && daemon !== undefined) await stopAndCheckClean(node, daemon);
    } finally {
      await node?.cleanup();
    }
  });

  const pod = (key: string): PodStatus => {
    const p = final === undefined ? undefined : podStatus(final, key);
    assert.ok(p !== undefined, `${key} is not in /status`);
    return p;
  };

  test("a BestEffort pod is rejected: Failed, Evicted, the kubelet's message, never started", () => {
    const p = pod("default/besteffort");
    assert.deepEqual(
      [p.phase, p.reason, p.message, p.qosClass],
      ["Failed", "Evicted", REJECTED, "BestEffort"],
    );
    assert.deepEqual(
      p.conditions.filter((c) => c.type === "DisruptionTarget"),
      [],
      "a rejection is not a disruption",
    );
    assert.ok(
      !daemon?.lines.some((l) => l.msg === "container started" && l["pod"] === "default/besteffort"),
      "never started",
    );
  });

  test("a Burstable pod is admitted and runs", () => {
    const p = pod("default/burstable");
    assert.deepEqual([p.phase, p.reason, p.qosClass], ["Running", undefined, "Burstable"]);
  });

  test("a BestEffort pod tolerating node.kubernetes.io/memory-pressure:NoSchedule is admitted", () => {
    assert.deepEqual(
      [pod("default/tolerant").phase, pod("default/tolerant").qosClass],
      ["Running", "BestEffort"],
    );
  });

  test("a critical (static) BestEffort pod is admitted", () => {
    assert.deepEqual(
      [pod("kube-system/static").phase, pod("kube-system/static").qosClass],
      ["Running", "BestEffort"],
    );
  });

  test("nothing was evicted: the soft threshold is still inside its grace period", () => {
    assert.ok(final !== undefined);
    assert.equal(condition(final, "MemoryPressure"), "True");
    assert.deepEqual(final.evictionCounts, {});
    assert.equal(pod("default/hog").phase, "Running");
  });
});
