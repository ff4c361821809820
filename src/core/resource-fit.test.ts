/** Resource-fit admission: the kubelet's `OutOfpods` and `OutOfmemory` rejections, with their messages word for word. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { IssueList } from "./issues.js";
import type { Pod } from "./model.js";
import { decodePod } from "./pod/decode-pod.js";
import { fitsNodeResources } from "./resource-fit.js";

function pod(name: string, memory?: string): Pod {
  const issues = new IssueList();
  const resources = memory === undefined ? {} : { resources: { requests: { memory } } };
  const p = decodePod(
    { metadata: { name }, spec: { containers: [{ name: "c", ...resources }] } },
    "pod",
    issues,
  );
  assert.deepEqual(issues.items, []);
  assert.ok(p);
  return p;
}

const Gi = 1024n * 1024n * 1024n;
/** A node of 4Gi allocatable memory and the kubelet's default maxPods. */
const node = { memoryBytes: 4n * Gi, pods: 110 };

describe("fitsNodeResources", () => {
  test("an absurd request (1Ei) is rejected as the kubelet does: OutOfmemory, requested/used/capacity", () => {
    const r = fitsNodeResources(pod("huge", "1Ei"), [pod("a", "1Gi")], node);
    assert.deepEqual(r, {
      admit: false,
      reason: "OutOfmemory",
      message: `Node didn't have enough resource: memory, requested: ${2n ** 60n}, used: ${Gi}, capacity: ${node.memoryBytes}`,
    });
  });

  test("a request that fits in what the admitted pods leave is admitted; one byte more is not", () => {
    const admitted = [pod("a", "1Gi"), pod("b", "2Gi"), pod("be")];
    assert.deepEqual(fitsNodeResources(pod("c", "1Gi"), admitted, node), { admit: true });
    const over = fitsNodeResources(pod("d", String(Gi + 1n)), admitted, node);
    assert.equal(over.admit, false);
  });

  test("a pod without a memory request always fits (BestEffort), and a pod is not counted against itself", () => {
    assert.deepEqual(fitsNodeResources(pod("be"), [pod("a", "8Gi")], node), { admit: true });
    const self = pod("self", "3Gi");
    assert.deepEqual(fitsNodeResources(self, [self], node), { admit: true });
  });

  test("one pod past maxPods is rejected as the kubelet does: OutOfpods, requested 1, used and capacity in pods", () => {
    const running = [pod("a"), pod("b"), pod("c")];
    const small = { memoryBytes: 4n * Gi, pods: 3 };
    assert.deepEqual(fitsNodeResources(pod("d"), running, small), {
      admit: false,
      reason: "OutOfpods",
      message: "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3",
    });
    assert.deepEqual(fitsNodeResources(pod("c2"), running.slice(0, 2), small), { admit: true });
  });

  test("the pod count is checked before memory: a pod failing both is OutOfpods (the kubelet reports the first)", () => {
    const r = fitsNodeResources(pod("huge", "1Ei"), [pod("a", "1Gi")], { memoryBytes: 4n * Gi, pods: 1 });
    assert.equal(r.admit ? "admitted" : r.reason, "OutOfpods");
    assert.equal(
      r.admit ? "" : r.message,
      "Node didn't have enough resource: pods, requested: 1, used: 1, capacity: 1",
    );
  });

  test("maxPods 0 admits no pod; the pod itself is not counted among the admitted", () => {
    const none = fitsNodeResources(pod("a"), [], { memoryBytes: 4n * Gi, pods: 0 });
    assert.equal(
      none.admit ? "" : none.message,
      "Node didn't have enough resource: pods, requested: 1, used: 0, capacity: 0",
    );
    const self = pod("self");
    assert.deepEqual(fitsNodeResources(self, [self], { memoryBytes: 4n * Gi, pods: 1 }), { admit: true });
  });
});
