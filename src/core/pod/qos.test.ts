// Tests for the QoS class: per-container rule, API defaulting, init containers, pod-level resources.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IssueList } from "../issues.js";
import type { Pod, QosClass } from "../model.js";
import { decodePod } from "./decode-pod.js";
import { computePodQos, podQos } from "./qos.js";

type Resources = { requests?: Record<string, string>; limits?: Record<string, string> };

function pod(
  containers: Resources[],
  init: Resources[] = [],
  extra: { spec?: object; status?: object } = {},
): Pod {
  const issues = new IssueList();
  const p = decodePod(
    {
      metadata: { name: "p" },
      spec: {
        containers: containers.map((resources, i) => ({ name: `c${i}`, resources })),
        initContainers: init.map((resources, i) => ({ name: `i${i}`, resources })),
        ...extra.spec,
      },
      ...(extra.status !== undefined ? { status: extra.status } : {}),
    },
    "pod",
    issues,
  );
  assert.deepEqual(issues.items, []);
  assert.ok(p);
  return p;
}

const guaranteed: Resources = { requests: { cpu: "1", memory: "1Gi" }, limits: { cpu: "1", memory: "1Gi" } };
const bestEffort: Resources = {};

describe("computePodQos", () => {
  const cases: { name: string; pod: Pod; want: QosClass }[] = [
    { name: "no resources", pod: pod([bestEffort]), want: "BestEffort" },
    { name: "requests equal limits for cpu and memory", pod: pod([guaranteed]), want: "Guaranteed" },
    {
      name: "limits only for cpu and memory (requests defaulted)",
      pod: pod([{ limits: { cpu: "500m", memory: "256Mi" } }]),
      want: "Guaranteed",
    },
    {
      name: "equal values in different spellings",
      pod: pod([{ requests: { cpu: "1000m", memory: "1024Mi" }, limits: { cpu: "1", memory: "1Gi" } }]),
      want: "Guaranteed",
    },
    { name: "limits only for memory", pod: pod([{ limits: { memory: "256Mi" } }]), want: "Burstable" },
    { name: "requests only", pod: pod([{ requests: { memory: "256Mi" } }]), want: "Burstable" },
    {
      name: "requests below limits",
      pod: pod([{ requests: { cpu: "1", memory: "128Mi" }, limits: { cpu: "1", memory: "256Mi" } }]),
      want: "Burstable",
    },
    {
      name: "only ephemeral-storage set",
      pod: pod([{ requests: { "ephemeral-storage": "1Gi" }, limits: { "ephemeral-storage": "2Gi" } }]),
      want: "BestEffort",
    },
    {
      name: "guaranteed cpu/memory plus mismatched ephemeral-storage",
      pod: pod([
        {
          requests: { cpu: "1", memory: "1Gi", "ephemeral-storage": "1Gi" },
          limits: { cpu: "1", memory: "1Gi", "ephemeral-storage": "2Gi" },
        },
      ]),
      want: "Guaranteed",
    },
    {
      name: "explicit zero requests",
      pod: pod([{ requests: { cpu: "0", memory: "0" } }]),
      want: "BestEffort",
    },
    { name: "two guaranteed containers", pod: pod([guaranteed, guaranteed]), want: "Guaranteed" },
    { name: "guaranteed mixed with best-effort", pod: pod([guaranteed, bestEffort]), want: "Burstable" },
    {
      name: "best-effort init container, guaranteed app",
      pod: pod([guaranteed], [bestEffort]),
      want: "Burstable",
    },
    { name: "guaranteed init container and app", pod: pod([guaranteed], [guaranteed]), want: "Guaranteed" },
    {
      name: "burstable init container",
      pod: pod([bestEffort], [{ requests: { memory: "10Mi" } }]),
      want: "Burstable",
    },
    {
      name: "pod-level limits only: requests default to them",
      pod: pod([bestEffort], [], { spec: { resources: { limits: { cpu: "1", memory: "1Gi" } } } }),
      want: "Guaranteed",
    },
    {
      name: "pod-level limits with smaller container requests",
      pod: pod([{ requests: { cpu: "500m", memory: "512Mi" } }], [], {
        spec: { resources: { limits: { cpu: "1", memory: "1Gi" } } },
      }),
      want: "Burstable",
    },
    {
      name: "pod-level resources override guaranteed containers",
      pod: pod([guaranteed], [], { spec: { resources: { requests: { memory: "1Gi" } } } }),
      want: "Burstable",
    },
    {
      name: "an empty spec.resources object means BestEffort",
      pod: pod([guaranteed], [], { spec: { resources: {} } }),
      want: "BestEffort",
    },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(computePodQos(c.pod), c.want));
  }
});

test("podQos: status.qosClass wins over the spec", () => {
  const p = pod([bestEffort], [], { status: { qosClass: "Guaranteed" } });
  assert.equal(podQos(p), "Guaranteed");
  assert.equal(computePodQos(p), "BestEffort");
  assert.equal(podQos(pod([bestEffort])), "BestEffort");
});
