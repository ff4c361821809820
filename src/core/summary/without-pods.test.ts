import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IssueList } from "../issues.js";
import type { NodeSummary, Pod } from "../model.js";
import { decodePod } from "../pod/decode-pod.js";
import { decodeSummary } from "./decode-summary.js";
import { hasOwnStats, summaryWithoutPods } from "./without-pods.js";

const T = Date.UTC(2025, 0, 1);

function decode(raw: unknown): NodeSummary {
  const issues = new IssueList();
  const s = decodeSummary(raw, "summary", T, issues);
  assert.deepEqual(issues.items, []);
  assert.ok(s !== undefined);
  return s;
}

function pod(name: string, uid?: string): Pod {
  const issues = new IssueList();
  const p = decodePod(
    {
      metadata: { name, namespace: "default", ...(uid !== undefined ? { uid } : {}) },
      spec: { containers: [{ name: "c" }] },
    },
    "pod",
    issues,
  );
  assert.ok(p !== undefined, JSON.stringify(issues.items));
  return p;
}

/**
 * A node of 1000 bytes of memory: pod `a` holds 300 of working set, with a 120-byte writable layer
 * (6 inodes), 80 bytes of logs (2 inodes) and a 200-byte emptyDir (4 inodes) beside a PVC, 7
 * processes; pod `b` holds 100.
 */
function node(ephemeral: boolean): unknown {
  const fs = (available: number, inodesFree: number) => ({
    availableBytes: available,
    capacityBytes: 10_000,
    usedBytes: 10_000 - available,
    inodesFree,
    inodes: 1000,
    inodesUsed: 1000 - inodesFree,
  });
  return {
    node: {
      memory: { availableBytes: 100, workingSetBytes: 900, usageBytes: 950 },
      systemContainers: [
        { name: "kubelet", memory: { workingSetBytes: 50 } },
        { name: "pods", memory: { availableBytes: 200, workingSetBytes: 400 } },
      ],
      fs: fs(4000, 500),
      runtime: { imageFs: fs(6000, 700), containerFs: fs(7000, 800) },
      rlimit: { maxpid: 500, curproc: 100 },
    },
    pods: [
      {
        podRef: { name: "a", namespace: "default", uid: "uid-a" },
        memory: { workingSetBytes: 300 },
        containers: [
          {
            name: "c",
            memory: { workingSetBytes: 300 },
            rootfs: { usedBytes: 120, inodesUsed: 6 },
            logs: { usedBytes: 80, inodesUsed: 2 },
          },
        ],
        volume: [
          { name: "scratch", usedBytes: 200, inodesUsed: 4 },
          { name: "data", usedBytes: 5000, inodesUsed: 50, pvcRef: { name: "data", namespace: "default" } },
        ],
        ...(ephemeral ? { "ephemeral-storage": { usedBytes: 400, inodesUsed: 12 } } : {}),
        process_stats: { process_count: 7 },
      },
      {
        podRef: { name: "b", namespace: "default", uid: "uid-b" },
        memory: { workingSetBytes: 100 },
        containers: [{ name: "c", memory: { workingSetBytes: 100 } }],
      },
    ],
  };
}

describe("summaryWithoutPods", () => {
  test("single filesystem: memory, allocatable, every filesystem and the processes get back what the pod used", () => {
    const { summary, freed, removed } = summaryWithoutPods(decode(node(true)), [pod("a", "uid-a")], "single");
    assert.equal(removed.length, 1);
    assert.deepEqual(freed, {
      workingSetBytes: 300n,
      nodefsBytes: 400n,
      nodefsInodes: 12n,
      layerBytes: 0n,
      layerInodes: 0n,
      processes: 7n,
    });
    const n = summary.node;
    // 900 - 300 of working set, 100 + 300 available; usage 950 - 300.
    assert.deepEqual(
      [n.memory?.workingSetBytes, n.memory?.availableBytes, n.memory?.usageBytes],
      [600n, 400n, 650n],
    );
    const pods = n.systemContainers.find((c) => c.name === "pods");
    assert.deepEqual([pods?.memory?.workingSetBytes, pods?.memory?.availableBytes], [100n, 500n]);
    assert.equal(n.systemContainers.find((c) => c.name === "kubelet")?.memory?.workingSetBytes, 50n);
    // One filesystem: its 400 bytes and 12 inodes back to nodefs and to imagefs/containerfs alike.
    assert.deepEqual(
      [n.fs?.availableBytes, n.fs?.usedBytes, n.fs?.inodesFree, n.fs?.inodesUsed],
      [4400n, 5600n, 512n, 488n],
    );
    assert.deepEqual([n.runtime?.imageFs?.availableBytes, n.runtime?.imageFs?.inodesFree], [6400n, 712n]);
    assert.deepEqual(
      [n.runtime?.containerFs?.availableBytes, n.runtime?.containerFs?.inodesFree],
      [7400n, 812n],
    );
    assert.equal(n.rlimit?.curproc, 93n);
    assert.deepEqual(
      summary.pods.map((p) => p.podRef.name),
      ["b"],
    );
    assert.equal(summary.findPod?.("uid-a", "default/a"), undefined);
    assert.equal(summary.findPod?.("uid-b", "default/b")?.podRef.name, "b");
  });

  test("dedicated imagefs: the writable layers go back to imagefs, logs and volumes to nodefs; split: layers to containerfs", () => {
    const dedicated = summaryWithoutPods(decode(node(true)), [pod("a", "uid-a")], "dedicated").summary.node;
    // 400 bytes of ephemeral storage: 120 of layers (6 inodes), 280 of logs and volumes (6 inodes).
    assert.deepEqual([dedicated.fs?.availableBytes, dedicated.fs?.inodesFree], [4280n, 506n]);
    assert.deepEqual(
      [dedicated.runtime?.imageFs?.availableBytes, dedicated.runtime?.imageFs?.inodesFree],
      [6120n, 706n],
    );
    const split = summaryWithoutPods(decode(node(true)), [pod("a", "uid-a")], "split").summary.node;
    assert.deepEqual([split.fs?.availableBytes, split.fs?.inodesFree], [4280n, 506n]);
    assert.deepEqual(
      [split.runtime?.imageFs?.availableBytes, split.runtime?.imageFs?.inodesFree],
      [6000n, 700n],
    );
    assert.deepEqual(
      [split.runtime?.containerFs?.availableBytes, split.runtime?.containerFs?.inodesFree],
      [7120n, 806n],
    );
  });

  test("without an ephemeral-storage block: layers, logs and volumes other than PVCs", () => {
    const { freed } = summaryWithoutPods(decode(node(false)), [pod("a", "uid-a")], "single");
    // 120 + 80 + 200 bytes, 6 + 2 + 4 inodes; the PVC's 5000 bytes are not the node's.
    assert.deepEqual([freed.nodefsBytes, freed.nodefsInodes], [400n, 12n]);
  });

  test("nothing below zero, no filesystem above its capacity", () => {
    const raw = node(true) as { node: { memory: unknown; fs: unknown } };
    raw.node.memory = { availableBytes: 0, workingSetBytes: 200 };
    raw.node.fs = { availableBytes: 9900, capacityBytes: 10_000, inodesFree: 995, inodes: 1000 };
    const n = summaryWithoutPods(decode(raw), [pod("a", "uid-a")], "single").summary.node;
    // The working set gives back what it had (200), not the pod's 300.
    assert.deepEqual([n.memory?.workingSetBytes, n.memory?.availableBytes], [0n, 200n]);
    assert.deepEqual([n.fs?.availableBytes, n.fs?.inodesFree], [10_000n, 1000n]);
  });

  test("a pod's own entry only: a successor of the same name with another UID keeps its figures", () => {
    const s = decode(node(true));
    const gone = summaryWithoutPods(s, [pod("a", "uid-old")], "single");
    assert.equal(gone.summary, s, "no entry of its own: the summary itself");
    assert.equal(gone.removed.length, 0);
    assert.equal(hasOwnStats(s)(pod("a", "uid-old")), false);
    assert.equal(hasOwnStats(s)(pod("a", "uid-a")), true);
    // A pod given without a UID (its UID is its namespace/name) is matched by name.
    assert.equal(hasOwnStats(s)(pod("a")), true);
    assert.equal(summaryWithoutPods(s, [pod("a")], "single").removed.length, 1);
  });

  test("an entry without a UID (a lean recording's) is the pod of its name", () => {
    const raw = node(true) as { pods: { podRef: Record<string, string> }[] };
    for (const p of raw.pods) delete p.podRef["uid"];
    const s = decode(raw);
    assert.equal(hasOwnStats(s)(pod("a", "uid-a")), true);
    assert.equal(
      summaryWithoutPods(s, [pod("a", "uid-a")], "single").summary.node.memory?.workingSetBytes,
      600n,
    );
  });
});
