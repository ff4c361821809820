// Tests for pod request/limit aggregation: sidecars, init containers, overhead, pod-level resources.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IssueList } from "../issues.js";
import type { Pod } from "../model.js";
import { formatQuantity } from "../quantity.js";
import { decodePod } from "./decode-pod.js";
import { containerRequest, podEphemeralStorageLimit, podRequests } from "./resources.js";

type Res = Record<string, string>;
interface C {
  name: string;
  requests?: Res;
  limits?: Res;
  sidecar?: boolean;
}

function pod(containers: C[], init: C[] = [], spec: object = {}): Pod {
  const toRaw = (c: C): object => ({
    name: c.name,
    resources: { ...(c.requests && { requests: c.requests }), ...(c.limits && { limits: c.limits }) },
    ...(c.sidecar === true ? { restartPolicy: "Always" } : {}),
  });
  const issues = new IssueList();
  const p = decodePod(
    {
      metadata: { name: "p" },
      spec: { containers: containers.map(toRaw), initContainers: init.map(toRaw), ...spec },
    },
    "pod",
    issues,
  );
  assert.deepEqual(issues.items, []);
  assert.ok(p);
  return p;
}

describe("podRequests", () => {
  const cases: { name: string; pod: Pod; resource: string; want: string }[] = [
    {
      name: "regular containers are summed",
      pod: pod([
        { name: "a", requests: { memory: "100Mi" } },
        { name: "b", requests: { memory: "200Mi" } },
      ]),
      resource: "memory",
      want: "300Mi",
    },
    {
      name: "cpu sums in DecimalSI",
      pod: pod([
        { name: "a", requests: { cpu: "100m" } },
        { name: "b", requests: { cpu: "250m" } },
      ]),
      resource: "cpu",
      want: "350m",
    },
    {
      name: "missing resource is zero",
      pod: pod([{ name: "a", requests: { cpu: "1" } }]),
      resource: "memory",
      want: "0",
    },
    {
      name: "a regular init container larger than the containers wins",
      pod: pod(
        [{ name: "a", requests: { memory: "100Mi" } }],
        [{ name: "i", requests: { memory: "500Mi" } }],
      ),
      resource: "memory",
      want: "500Mi",
    },
    {
      name: "a regular init container smaller than the containers does not count",
      pod: pod([{ name: "a", requests: { memory: "100Mi" } }], [{ name: "i", requests: { memory: "50Mi" } }]),
      resource: "memory",
      want: "100Mi",
    },
    {
      name: "sidecars add to the total",
      pod: pod(
        [{ name: "a", requests: { memory: "100Mi" } }],
        [{ name: "s", requests: { memory: "50Mi" }, sidecar: true }],
      ),
      resource: "memory",
      want: "150Mi",
    },
    {
      name: "an init container after a sidecar needs its own request plus the sidecar's",
      pod: pod(
        [{ name: "a", requests: { memory: "100Mi" } }],
        [
          { name: "s", requests: { memory: "50Mi" }, sidecar: true },
          { name: "i", requests: { memory: "200Mi" } },
        ],
      ),
      resource: "memory",
      want: "250Mi",
    },
    {
      name: "an init container before a sidecar runs alone",
      pod: pod(
        [{ name: "a", requests: { memory: "100Mi" } }],
        [
          { name: "i", requests: { memory: "200Mi" } },
          { name: "s", requests: { memory: "50Mi" }, sidecar: true },
        ],
      ),
      resource: "memory",
      want: "200Mi",
    },
    {
      name: "requests defaulted from limits count",
      pod: pod([{ name: "a", limits: { memory: "1Gi" } }]),
      resource: "memory",
      want: "1Gi",
    },
    {
      name: "overhead is added to a non-zero total",
      pod: pod([{ name: "a", requests: { memory: "100Mi" } }], [], { overhead: { memory: "10Mi" } }),
      resource: "memory",
      want: "110Mi",
    },
    {
      name: "overhead is not added to a zero total",
      pod: pod([{ name: "a" }], [], { overhead: { memory: "10Mi" } }),
      resource: "memory",
      want: "0",
    },
    {
      name: "pod-level requests replace container requests",
      pod: pod([{ name: "a", requests: { memory: "100Mi" } }], [], {
        resources: { requests: { memory: "1Gi" } },
      }),
      resource: "memory",
      want: "1Gi",
    },
    {
      name: "with pod-level resources, ephemeral-storage requests count 0",
      pod: pod([{ name: "a", requests: { "ephemeral-storage": "1Gi" } }], [], {
        resources: { requests: { memory: "1Gi" } },
      }),
      resource: "ephemeral-storage",
      want: "0",
    },
    {
      name: "pod-level limits only: memory request defaulted from the containers' aggregate",
      pod: pod([{ name: "a", requests: { memory: "100Mi" } }], [], { resources: { limits: { cpu: "2" } } }),
      resource: "memory",
      want: "100Mi",
    },
    {
      name: "pod-level requests plus overhead",
      pod: pod([{ name: "a" }], [], {
        resources: { requests: { memory: "1Gi" } },
        overhead: { memory: "512Mi" },
      }),
      resource: "memory",
      want: "1536Mi",
    },
    {
      name: "pod-level resources for an unsupported resource only keep container requests",
      pod: pod([{ name: "a", requests: { memory: "100Mi" } }], [], {
        resources: { requests: { "ephemeral-storage": "1Gi" } },
      }),
      resource: "memory",
      want: "100Mi",
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      assert.equal(formatQuantity(podRequests(c.pod, c.resource)), c.want);
    });
  }
});

describe("podEphemeralStorageLimit", () => {
  const cases: { name: string; pod: Pod; want: string | undefined }[] = [
    {
      name: "no container declares one",
      pod: pod([{ name: "a", requests: { "ephemeral-storage": "1Gi" } }]),
      want: undefined,
    },
    {
      name: "only declaring containers are summed",
      pod: pod([
        { name: "a", limits: { "ephemeral-storage": "1Gi" } },
        { name: "b", limits: { "ephemeral-storage": "2Gi" } },
        { name: "c" },
      ]),
      want: "3Gi",
    },
    {
      name: "a declared zero counts",
      pod: pod([{ name: "a", limits: { "ephemeral-storage": "0" } }]),
      want: "0",
    },
    {
      name: "overhead is added to a non-zero limit",
      pod: pod([{ name: "a", limits: { "ephemeral-storage": "1Gi" } }], [], {
        overhead: { "ephemeral-storage": "1Gi" },
      }),
      want: "2Gi",
    },
    {
      name: "sidecars accumulate, init containers take the max",
      pod: pod(
        [{ name: "a", limits: { "ephemeral-storage": "1Gi" } }],
        [
          { name: "s", limits: { "ephemeral-storage": "1Gi" }, sidecar: true },
          { name: "i", limits: { "ephemeral-storage": "4Gi" } },
        ],
      ),
      want: "5Gi",
    },
    {
      name: "pod-level resources do not replace it",
      pod: pod([{ name: "a", limits: { "ephemeral-storage": "1Gi" } }], [], {
        resources: { limits: { memory: "1Gi" } },
      }),
      want: "1Gi",
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      const got = podEphemeralStorageLimit(c.pod);
      assert.equal(got === undefined ? undefined : formatQuantity(got), c.want);
    });
  }
});

test("containerRequest: present, defaulted from limit, absent", () => {
  const p = pod([{ name: "a", requests: { memory: "128Mi" }, limits: { cpu: "1" } }]);
  const a = p.containers[0]!;
  assert.equal(formatQuantity(containerRequest(a, "memory")), "128Mi");
  assert.equal(formatQuantity(containerRequest(a, "cpu")), "1");
  assert.equal(formatQuantity(containerRequest(a, "ephemeral-storage")), "0");
});
