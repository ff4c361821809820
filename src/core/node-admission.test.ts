/** The node's admission chain: the eviction manager's handler answers first, then resource fit (pods, then memory). */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "./issues.js";
import { decodePod } from "./pod/decode-pod.js";
import { admitPodToNode } from "./node-admission.js";

const huge = decodePod(
  {
    metadata: { name: "huge" },
    spec: { containers: [{ name: "c", resources: { requests: { memory: "1Ei" } } }] },
  },
  "pod",
  new IssueList(),
);

describe("admitPodToNode", () => {
  test("under DiskPressure the eviction manager rejects first (Evicted); without it, resource fit does (OutOfmemory)", () => {
    assert.ok(huge);
    const Gi = 1024n * 1024n * 1024n;
    const pressed = admitPodToNode(huge, ["DiskPressure"], [], { memoryBytes: 4n * Gi, pods: 110 });
    assert.equal(pressed.admit ? "admitted" : pressed.reason, "Evicted");
    const calm = admitPodToNode(huge, [], [], { memoryBytes: 4n * Gi, pods: 110 });
    assert.equal(calm.admit ? "admitted" : calm.reason, "OutOfmemory");
  });

  test("past maxPods: the eviction manager still answers first under pressure, then OutOfpods before OutOfmemory", () => {
    assert.ok(huge);
    const Gi = 1024n * 1024n * 1024n;
    const full = { memoryBytes: 4n * Gi, pods: 0 };
    const pressed = admitPodToNode(huge, ["DiskPressure"], [], full);
    assert.equal(pressed.admit ? "admitted" : pressed.reason, "Evicted");
    const calm = admitPodToNode(huge, [], [], full);
    assert.deepEqual(calm, {
      admit: false,
      reason: "OutOfpods",
      message: "Node didn't have enough resource: pods, requested: 1, used: 0, capacity: 0",
    });
  });
});
