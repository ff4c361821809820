/** The node's admission chain: the eviction manager's handler answers first, then resource fit. */
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
    const pressed = admitPodToNode(huge, ["DiskPressure"], [], 4n * Gi);
    assert.equal(pressed.admit ? "admitted" : pressed.reason, "Evicted");
    const calm = admitPodToNode(huge, [], [], 4n * Gi);
    assert.equal(calm.admit ? "admitted" : calm.reason, "OutOfmemory");
  });
});
