// Eviction order explained: each pod's place and the facts the comparators used.
import assert from "node:assert/strict";
import { test } from "node:test";
import { IssueList } from "../issues.js";
import type { NodeSummary } from "../model.js";
import { decodePodList } from "../pod/decode-pod.js";
import { explainRanking } from "./explain-ranking.js";
import { podStatsLookup } from "./pod-stats-lookup.js";

const Mi = 1024n * 1024n;
const pods = decodePodList(
  [
    {
      metadata: { name: "web" },
      spec: { containers: [{ name: "app", resources: { requests: { memory: "256Mi" } } }] },
    },
    { metadata: { name: "new" }, spec: { containers: [{ name: "app" }] } },
    {
      metadata: { name: "db" },
      spec: { priority: 100, containers: [{ name: "pg", resources: { requests: { memory: "1Gi" } } }] },
    },
    {
      metadata: { name: "dns", namespace: "kube-system" },
      spec: { priorityClassName: "system-cluster-critical", containers: [{ name: "c" }] },
    },
  ],
  "pods",
  new IssueList(),
);
const stats = (name: string, ns: string, ws: bigint, procs?: bigint) => ({
  podRef: { name, namespace: ns, uid: `${ns}/${name}` },
  memory: { workingSetBytes: ws },
  containers: [],
  volumes: [],
  ...(procs !== undefined ? { processCount: procs } : {}),
});
const summary: NodeSummary = {
  node: { systemContainers: [] },
  pods: [
    stats("web", "default", 900n * Mi, 3n),
    stats("db", "default", 800n * Mi, 40n),
    stats("dns", "kube-system", 50n * Mi, 2n),
  ],
};

test("memory: the pod without stats first, then usage over request; critical pods marked", () => {
  const r = explainRanking("memory.available", "single", pods, podStatsLookup(summary));
  assert.ok(r);
  assert.deepEqual(
    r.map((e) => [e.place, e.pod.key, e.critical, e.reason]),
    [
      [1, "default/new", false, "no stats yet: pods the kubelet cannot measure go first"],
      [
        2,
        "default/web",
        false,
        "working set 900Mi against a request of 256Mi (over its request), priority 0",
      ],
      [
        3,
        "kube-system/dns",
        true,
        "working set 50Mi against a request of 0 (over its request), priority 2000000000; critical: never evicted",
      ],
      [
        4,
        "default/db",
        false,
        "working set 800Mi against a request of 1Gi (within its request), priority 100",
      ],
    ],
  );
});

test("pids: priority first, then process count", () => {
  const r = explainRanking("pid.available", "single", pods, podStatsLookup(summary));
  assert.deepEqual(
    r?.map((e) => [e.pod.key, e.reason]),
    [
      ["default/new", "priority 0, no stats (ranked first within its priority)"],
      ["default/web", "priority 0, 3 processes"],
      ["default/db", "priority 100, 40 processes"],
      ["kube-system/dns", "priority 2000000000, 2 processes; critical: never evicted"],
    ],
  );
});

test("a pod ranked by an allocated request its spec no longer asks shows both, with the resize", () => {
  const message = "Node didn't have enough capacity: memory, requested: 2147483648, capacity: 1073741824";
  const resized = decodePodList(
    [
      {
        metadata: { name: "web" },
        spec: { containers: [{ name: "app", resources: { requests: { memory: "2Gi" } } }] },
        status: {
          containerStatuses: [{ name: "app", allocatedResources: { memory: "1Gi" } }],
          conditions: [{ type: "PodResizePending", status: "True", reason: "Infeasible", message }],
        },
      },
      {
        metadata: { name: "db" },
        spec: { priority: 100, containers: [{ name: "pg", resources: { requests: { memory: "1Gi" } } }] },
      },
    ],
    "pods",
    new IssueList(),
  );
  const memory = explainRanking("memory.available", "single", resized, podStatsLookup(summary));
  assert.deepEqual(
    memory?.map((e) => [e.pod.key, e.reason]),
    [
      [
        "default/web",
        "working set 900Mi against a request of 1Gi (within its request), priority 0; " +
          `memory request 1Gi allocated (spec asks 2Gi, resize Infeasible: ${message})`,
      ],
      ["default/db", "working set 800Mi against a request of 1Gi (within its request), priority 100"],
    ],
  );
  assert.equal(memory?.[0]?.allocation?.resource, "memory");
  assert.equal(memory?.[1]?.allocation, undefined);
  // PIDs rank by no request: nothing to say about one.
  const pids = explainRanking("pid.available", "single", resized, podStatsLookup(summary));
  assert.ok(pids?.every((e) => e.allocation === undefined && !e.reason.includes("allocated")));
});
