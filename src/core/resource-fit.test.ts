/** Resource-fit admission: the kubelet's `OutOfmemory` rejection, with its message word for word. */
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

describe("fitsNodeResources", () => {
  test("an absurd request (1Ei) is rejected as the kubelet does: OutOfmemory, requested/used/capacity", () => {
    const r = fitsNodeResources(pod("huge", "1Ei"), [pod("a", "1Gi")], 4n * Gi);
    assert.deepEqual(r, {
      admit: false,
      reason: "OutOfmemory",
      message: `Node didn't have enough resource: memory, requested: ${2n ** 60n}, used: ${Gi}, capacity: ${4n * Gi}`,
    });
  });

  test("a request that fits in what the admitted pods leave is admitted; one byte more is not", () => {
    const admitted = [pod("a", "1Gi"), pod("b", "2Gi"), pod("be")];
    assert.deepEqual(fitsNodeResources(pod("c", "1Gi"), admitted, 4n * Gi), { admit: true });
    const over = fitsNodeResources(pod("d", String(Gi + 1n)), admitted, 4n * Gi);
    assert.equal(over.admit, false);
  });

  test("a pod without a memory request always fits (BestEffort), and a pod is not counted against itself", () => {
    assert.deepEqual(fitsNodeResources(pod("be"), [pod("a", "8Gi")], 4n * Gi), { admit: true });
    const self = pod("self", "3Gi");
    assert.deepEqual(fitsNodeResources(self, [self], 4n * Gi), { admit: true });
  });
});
