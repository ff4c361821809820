// The pod as its spec asks beside the pod as allocated: the requests explanations show next to the
// allocated ones, and nothing when the two agree.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IssueList } from "../issues.js";
import type { Pod } from "../model.js";
import { formatQuantity } from "../quantity.js";
import { decodePod } from "./decode-pod.js";
import { desiredPod, isAllocationBehindSpec, requestAllocation } from "./desired-resources.js";
import { podRequests } from "./resources.js";

function decodeOk(raw: unknown): Pod {
  const issues = new IssueList();
  const pod = decodePod(raw, "pod", issues);
  assert.deepEqual(issues.items, []);
  assert.ok(pod);
  return pod;
}

const spec = {
  containers: [{ name: "app", resources: { requests: { memory: "2Gi", cpu: "1" } } }],
  initContainers: [{ name: "proxy", restartPolicy: "Always", resources: { requests: { memory: "100Mi" } } }],
};

describe("desired against allocated", () => {
  test("desiredPod puts the spec's requests back; requestAllocation compares the pod sums", () => {
    const pod = decodeOk({
      metadata: { name: "web" },
      spec,
      status: {
        containerStatuses: [{ name: "app", allocatedResources: { memory: "1Gi", cpu: "1" } }],
        initContainerStatuses: [{ name: "proxy", allocatedResources: { memory: "100Mi" } }],
        resize: "InProgress",
      },
    });
    assert.ok(isAllocationBehindSpec(pod));
    const desired = desiredPod(pod);
    assert.deepEqual(
      desired,
      decodeOk({ metadata: { name: "web" }, spec, status: { resize: "InProgress" } }),
    );
    assert.equal(formatQuantity(podRequests(desired, "memory")), "2148Mi");
    const memory = requestAllocation(pod, "memory");
    assert.deepEqual(
      memory && [formatQuantity(memory.allocated), formatQuantity(memory.desired), memory.resize],
      ["1124Mi", "2148Mi", { state: "InProgress" }],
    );
    assert.equal(requestAllocation(pod, "cpu"), undefined, "cpu was not resized");
  });

  test("a pod whose allocation agrees with its spec is its own desired pod", () => {
    const pod = decodeOk({
      metadata: { name: "web" },
      spec,
      status: { containerStatuses: [{ name: "app", allocatedResources: { memory: "2Gi", cpu: "1" } }] },
    });
    assert.equal(isAllocationBehindSpec(pod), false);
    assert.equal(desiredPod(pod), pod);
    assert.equal(requestAllocation(pod, "memory"), undefined);
  });

  test("pod-level requests", () => {
    const pod = decodeOk({
      metadata: { name: "web" },
      spec: { ...spec, resources: { requests: { memory: "3Gi" } } },
      status: { allocatedResources: { memory: "2Gi" } },
    });
    const memory = requestAllocation(pod, "memory");
    assert.deepEqual(memory && [formatQuantity(memory.allocated), formatQuantity(memory.desired)], [
      "2Gi",
      "3Gi",
    ]);
    assert.equal(desiredPod(pod).desiredPodRequests, undefined);
  });
});
