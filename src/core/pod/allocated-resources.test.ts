// Decoding a Pod whose status reports the kubelet's allocation (in-place resize): requests become
// the allocated ones, limits stay the spec's, and what the spec asks is kept beside them. The first
// cases are upstream's TestUpdatePodFromAllocation (pkg/kubelet/allocation), with its checkpoint
// read from the status fields the kubelet publishes it in.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IssueList } from "../issues.js";
import type { Pod, ResourceList } from "../model.js";
import { formatQuantity } from "../quantity.js";
import { decodePod } from "./decode-pod.js";
import { podQos } from "./qos.js";
import { podRequests } from "./resources.js";

function decode(raw: unknown): { pod: Pod | undefined; issues: IssueList } {
  const issues = new IssueList();
  return { pod: decodePod(raw, "pod", issues), issues };
}

function decodeOk(raw: unknown): Pod {
  const { pod, issues } = decode(raw);
  assert.deepEqual(issues.items, []);
  assert.ok(pod);
  return pod;
}

function show(list: ResourceList | undefined): Record<string, string> | undefined {
  return list === undefined
    ? undefined
    : Object.fromEntries(Object.entries(list).map(([k, v]) => [k, formatQuantity(v)]));
}

type Resources = { requests: Record<string, string>; limits: Record<string, string> };
const res = (cpuReq: string, memReq: string, cpuLim: string, memLim: string): Resources => ({
  requests: { cpu: cpuReq, memory: memReq },
  limits: { cpu: cpuLim, memory: memLim },
});

/** Upstream's pod: two containers, a sidecar and a plain init container. */
const SPEC = {
  containers: [
    { name: "c1", resources: res("100m", "200", "300m", "400") },
    { name: "c2", resources: res("500m", "600", "700m", "800") },
  ],
  initContainers: [
    { name: "c1-restartable-init", restartPolicy: "Always", resources: res("200m", "300", "400m", "500") },
    { name: "c1-init", resources: res("500m", "600", "700m", "800") },
  ],
};

function upstreamPod(status?: object): object {
  return {
    metadata: { name: "test", namespace: "default", uid: "12345" },
    spec: SPEC,
    ...(status !== undefined ? { status } : {}),
  };
}

/** A status reporting each container's allocated requests. */
function allocated(
  containers: Record<string, Record<string, string>>,
  initContainers: Record<string, Record<string, string>> = {},
): object {
  const entry = ([name, allocatedResources]: [string, Record<string, string>]) => ({
    name,
    allocatedResources,
  });
  return {
    containerStatuses: Object.entries(containers).map(entry),
    initContainerStatuses: Object.entries(initContainers).map(entry),
  };
}

const requestsOf = (pod: Pod): Record<string, Record<string, string> | undefined> =>
  Object.fromEntries(
    [...pod.containers, ...pod.initContainers].map((c) => [c.name, show(c.resources.requests)]),
  );

describe("allocated requests (upstream TestUpdatePodFromAllocation)", () => {
  test("steady state: an allocation equal to the spec changes nothing", () => {
    const plain = decodeOk(upstreamPod());
    const pod = decodeOk(
      upstreamPod(
        allocated(
          { c1: { cpu: "100m", memory: "200" }, c2: { cpu: "500m", memory: "600" } },
          {
            "c1-restartable-init": { cpu: "200m", memory: "300" },
            "c1-init": { cpu: "500m", memory: "600" },
          },
        ),
      ),
    );
    assert.deepEqual(pod, plain);
  });

  test("no allocations: the spec stands", () => {
    const pod = decodeOk(upstreamPod(allocated({})));
    assert.deepEqual(pod, decodeOk(upstreamPod()));
  });

  test("missing container allocation: containers without one keep their spec", () => {
    const pod = decodeOk(upstreamPod(allocated({ c2: { cpu: "500m", memory: "600" } })));
    assert.deepEqual(pod, decodeOk(upstreamPod()));
  });

  test("resized container: the allocation wholesale, the spec's limits, the spec's requests kept aside", () => {
    const pod = decodeOk(
      upstreamPod(
        allocated(
          { c1: { cpu: "200m", memory: "200" }, c2: { cpu: "500m", memory: "600" } },
          {
            "c1-restartable-init": { cpu: "300m", memory: "300" },
            "c1-init": { cpu: "500m", memory: "600" },
          },
        ),
      ),
    );
    assert.deepEqual(requestsOf(pod), {
      c1: { cpu: "200m", memory: "200" },
      c2: { cpu: "500m", memory: "600" },
      "c1-restartable-init": { cpu: "300m", memory: "300" },
      "c1-init": { cpu: "500m", memory: "600" },
    });
    const [c1, c2] = pod.containers;
    const [sidecar, init] = pod.initContainers;
    assert.deepEqual(show(c1?.resources.limits), { cpu: "300m", memory: "400" });
    assert.deepEqual(show(c1?.desiredRequests), { cpu: "100m", memory: "200" });
    assert.deepEqual(show(sidecar?.desiredRequests), { cpu: "200m", memory: "300" });
    assert.equal(c2?.desiredRequests, undefined, "unchanged containers carry no desired requests");
    assert.equal(init?.desiredRequests, undefined);
    assert.equal(sidecar?.restartPolicy, "Always");
    // Sidecar-aware sum over the allocated requests: 200m + 500m + 300m, against 100m + 500m + 200m.
    assert.equal(formatQuantity(podRequests(pod, "cpu")), "1");
  });
});

describe("allocated requests: the status fields", () => {
  const web = (status: object, spec: object = {}): object => ({
    metadata: { name: "web", uid: "u1" },
    spec: {
      containers: [
        {
          name: "app",
          resources: { requests: { memory: "100Mi", "ephemeral-storage": "1Gi" }, limits: { memory: "4Gi" } },
        },
      ],
      ...spec,
    },
    status,
  });

  test("a resource the allocation lacks is not requested: the kubelet replaces the whole list", () => {
    const pod = decodeOk(web(allocated({ app: { memory: "1Gi" } })));
    assert.deepEqual(show(pod.containers[0]?.resources.requests), { memory: "1Gi" });
    assert.deepEqual(show(pod.containers[0]?.resources.limits), { memory: "4Gi" });
    assert.equal(formatQuantity(podRequests(pod, "ephemeral-storage")), "0");
  });

  test("quantities compare by value, not spelling; an empty allocation is no allocation", () => {
    const same = decodeOk(web(allocated({ app: { memory: "104857600", "ephemeral-storage": "1024Mi" } })));
    assert.equal(same.containers[0]?.desiredRequests, undefined);
    const empty = decodeOk(web(allocated({ app: {} })));
    assert.equal(empty.containers[0]?.desiredRequests, undefined);
    assert.deepEqual(show(empty.containers[0]?.resources.requests), {
      memory: "100Mi",
      "ephemeral-storage": "1Gi",
    });
  });

  test("a status for a container the spec does not have is ignored, without an issue", () => {
    const pod = decodeOk(
      web({
        containerStatuses: [
          { name: "gone", allocatedResources: { memory: "8Gi" } },
          { name: "app", allocatedResources: { memory: "2Gi" } },
        ],
        // Init container statuses are matched against init containers only.
        initContainerStatuses: [{ name: "app", allocatedResources: { memory: "9Gi" } }],
      }),
    );
    assert.deepEqual(show(pod.containers[0]?.resources.requests), { memory: "2Gi" });
  });

  test("QoS stays the spec's while a Guaranteed pod's resize waits (allocated requests, new limits)", () => {
    const pod = decodeOk({
      metadata: { name: "db" },
      spec: { containers: [{ name: "pg", resources: { limits: { cpu: "2", memory: "2Gi" } } }] },
      status: {
        containerStatuses: [{ name: "pg", allocatedResources: { cpu: "1", memory: "1Gi" } }],
        conditions: [{ type: "PodResizePending", status: "True", reason: "Deferred" }],
      },
    });
    assert.deepEqual(show(pod.containers[0]?.resources.requests), { cpu: "1", memory: "1Gi" });
    assert.equal(podQos(pod), "Guaranteed");
    assert.deepEqual(pod.resize, { state: "Deferred" });
  });

  test("pod-level: status.allocatedResources replaces spec.resources requests, limits stay", () => {
    const pod = decodeOk(
      web(
        { allocatedResources: { cpu: "1", memory: "1Gi" } },
        { resources: { requests: { memory: "512Mi" }, limits: { memory: "2Gi" } } },
      ),
    );
    assert.deepEqual(show(pod.podResources?.requests), { cpu: "1", memory: "1Gi" });
    assert.deepEqual(show(pod.podResources?.limits), { memory: "2Gi" });
    assert.deepEqual(show(pod.desiredPodRequests), { memory: "512Mi" });
    assert.equal(formatQuantity(podRequests(pod, "memory")), "1Gi");
  });

  test("pod-level: without spec.resources, status.allocatedResources (the containers' aggregate) is not pod-level", () => {
    const pod = decodeOk(web({ allocatedResources: { memory: "100Mi", "ephemeral-storage": "1Gi" } }));
    assert.equal(pod.podResources, undefined);
    assert.equal(pod.desiredPodRequests, undefined);
    assert.equal(formatQuantity(podRequests(pod, "ephemeral-storage")), "1Gi");
  });

  test("bad values are errors with their path and value; the pod is left out", () => {
    const { pod, issues } = decode(
      web({
        containerStatuses: [
          { name: "app", allocatedResources: { memory: "lots", cpu: "-1" } },
          "app",
          { name: 7, allocatedResources: "1Gi" },
        ],
        allocatedResources: ["1Gi"],
      }),
    );
    assert.equal(pod, undefined);
    assert.deepEqual(
      issues.items.map((i) => [i.severity, i.path]),
      [
        ["error", "pod.status.containerStatuses[0].allocatedResources.memory"],
        ["error", "pod.status.containerStatuses[0].allocatedResources.cpu"],
        ["error", "pod.status.containerStatuses[1]"],
        ["error", "pod.status.containerStatuses[2].name"],
        ["error", "pod.status.containerStatuses[2].allocatedResources"],
        ["error", "pod.status.allocatedResources"],
      ],
    );
    assert.match(issues.items[0]?.message ?? "", /invalid quantity "lots"/);
    assert.match(issues.items[1]?.message ?? "", /"-1" must be greater than or equal to 0/);
    assert.match(issues.items[2]?.message ?? "", /expected a container status object, got "app"/);
  });

  test("an allocation without a container name cannot be matched: a warning, the spec stands", () => {
    const { pod, issues } = decode(web({ containerStatuses: [{ allocatedResources: { memory: "1Gi" } }] }));
    assert.ok(pod);
    assert.deepEqual(
      issues.items.map((i) => [i.severity, i.path]),
      [["warning", "pod.status.containerStatuses[0].name"]],
    );
    assert.deepEqual(show(pod.containers[0]?.resources.requests), {
      memory: "100Mi",
      "ephemeral-storage": "1Gi",
    });
  });
});
