// Tests for oom_score_adj: QoS constants, the Burstable formula, clamping, sidecars, pod-level share.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { IssueList } from "../issues.js";
import type { Pod } from "../model.js";
import { decodePod } from "./decode-pod.js";
import { containerOomScoreAdj, podOomScoreAdjustments } from "./oom-score-adj.js";

const GI = 1024n * 1024n * 1024n;
const NODE_4GI = 4n * GI;
const NODE_16GI = 16n * GI;

function pod(spec: object, extra: { annotations?: object; status?: object } = {}): Pod {
  const issues = new IssueList();
  const p = decodePod(
    {
      metadata: { name: "p", ...(extra.annotations !== undefined ? { annotations: extra.annotations } : {}) },
      spec,
      ...(extra.status !== undefined ? { status: extra.status } : {}),
    },
    "pod",
    issues,
  );
  assert.deepEqual(issues.items, []);
  assert.ok(p);
  return p;
}

/** A single-container pod requesting `memory` with a larger limit (Burstable). */
function burstable(memory: string, limit = "64Gi"): Pod {
  return pod({
    containers: [{ name: "app", resources: { requests: { memory }, limits: { memory: limit } } }],
  });
}

describe("QoS constants", () => {
  const cases: { name: string; pod: Pod; want: number }[] = [
    {
      name: "Guaranteed",
      pod: pod({ containers: [{ name: "app", resources: { limits: { cpu: "1", memory: "1Gi" } } }] }),
      want: -997,
    },
    { name: "BestEffort", pod: pod({ containers: [{ name: "app" }] }), want: 1000 },
    {
      name: "node-critical BestEffort",
      pod: pod({ priorityClassName: "system-node-critical", containers: [{ name: "app" }] }),
      want: -997,
    },
    {
      name: "cluster-critical BestEffort is not node-critical",
      pod: pod({ priorityClassName: "system-cluster-critical", containers: [{ name: "app" }] }),
      want: 1000,
    },
    {
      name: "static pod of class system-node-critical",
      pod: pod(
        {
          priorityClassName: "system-node-critical",
          priority: 2000001000,
          containers: [{ name: "app", resources: { requests: { memory: "100Mi" } } }],
        },
        { annotations: { "kubernetes.io/config.source": "file" } },
      ),
      want: -997,
    },
    {
      name: "status.qosClass decides",
      pod: pod({ containers: [{ name: "app" }] }, { status: { qosClass: "Guaranteed" } }),
      want: -997,
    },
  ];
  for (const c of cases) {
    test(c.name, () => assert.equal(containerOomScoreAdj(c.pod, c.pod.containers[0]!, NODE_4GI), c.want));
  }
});

describe("Burstable formula", () => {
  const cases: { request: string; capacity: bigint; want: number; why: string }[] = [
    { request: "1Gi", capacity: NODE_4GI, want: 750, why: "1000 - 1000*1Gi/4Gi" },
    { request: "128Mi", capacity: NODE_4GI, want: 969, why: "1000 - floor(31.25)" },
    { request: "128Mi", capacity: NODE_16GI, want: 993, why: "1000 - floor(7.8125)" },
    { request: "4Gi", capacity: NODE_16GI, want: 750, why: "same share on a larger node" },
    { request: "4095Mi", capacity: NODE_4GI, want: 3, why: "1000 - 999 = 1, clamped up to 3" },
    { request: "4Gi", capacity: NODE_4GI, want: 3, why: "0 clamped up to 3" },
    { request: "8Gi", capacity: NODE_4GI, want: 3, why: "negative clamped up to 3" },
    { request: "4084Mi", capacity: NODE_4GI, want: 3, why: "1000 - 997 = 3 exactly" },
    { request: "4074Mi", capacity: NODE_4GI, want: 6, why: "1000 - floor(994.6) = 6" },
    { request: "1Mi", capacity: NODE_16GI, want: 999, why: "1000 - 0 = 1000, lowered to 999" },
    { request: "17Mi", capacity: NODE_16GI, want: 999, why: "1000 - floor(1.04) = 999" },
    { request: "100m", capacity: NODE_4GI, want: 999, why: "a fractional byte rounds up to 1 byte" },
  ];
  for (const c of cases) {
    test(`${c.request} on ${c.capacity / GI}Gi → ${c.want} (${c.why})`, () => {
      const p = burstable(c.request);
      assert.equal(containerOomScoreAdj(p, p.containers[0]!, c.capacity), c.want);
    });
  }

  test("a Burstable container without a memory request gets 999", () => {
    const p = pod({ containers: [{ name: "app", resources: { requests: { cpu: "100m" } } }] });
    assert.equal(containerOomScoreAdj(p, p.containers[0]!, NODE_4GI), 999);
  });

  test("capacity must be positive", () => {
    const p = burstable("1Gi");
    assert.throws(() => containerOomScoreAdj(p, p.containers[0]!, 0n), RangeError);
  });
});

describe("sidecars and init containers", () => {
  const p = pod({
    containers: [
      { name: "app", resources: { requests: { memory: "256Mi" } } },
      { name: "app2", resources: { requests: { memory: "1Gi" } } },
    ],
    initContainers: [
      { name: "log", restartPolicy: "Always", resources: { requests: { memory: "64Mi" } } },
      { name: "proxy", restartPolicy: "Always", resources: { requests: { memory: "2Gi" } } },
      { name: "setup", resources: { requests: { memory: "64Mi" } } },
    ],
  });

  test("every container on a 4Gi node", () => {
    assert.deepEqual(podOomScoreAdjustments(p, NODE_4GI), {
      app: 938, // 1000 - floor(62.5)
      app2: 750,
      log: 938, // own 985, capped at the most killable regular container (256Mi → 938)
      proxy: 500, // own 500 is already lower
      setup: 985, // plain init containers get no sidecar cap
    });
  });

  test("every container on a 16Gi node", () => {
    assert.deepEqual(podOomScoreAdjustments(p, NODE_16GI), {
      app: 985, // 1000 - floor(15.625)
      app2: 938,
      log: 985, // own 997 capped at 985
      proxy: 875,
      setup: 997,
    });
  });
});

describe("pod-level memory requests", () => {
  test("the unclaimed pod-level request is shared among all containers", () => {
    // Pod-level request 2Gi, containers claim 512Mi: 1536Mi / 2 containers = 768Mi each.
    const p = pod({
      resources: { requests: { memory: "2Gi" }, limits: { memory: "4Gi" } },
      containers: [{ name: "a", resources: { requests: { memory: "512Mi" } } }, { name: "b" }],
    });
    assert.deepEqual(podOomScoreAdjustments(p, NODE_4GI), {
      a: 688, // (512Mi + 768Mi) → 1000 - floor(312.5)
      b: 813, // 768Mi → 1000 - floor(187.5)
    });
  });

  test("init containers count in the share and the sidecar cap includes it", () => {
    // 3Gi - (1Gi app + 512Mi sidecar) = 1536Mi over 3 containers = 512Mi each.
    const p = pod({
      resources: { requests: { memory: "3Gi" }, limits: { memory: "4Gi" } },
      containers: [{ name: "app", resources: { requests: { memory: "1Gi" } } }],
      initContainers: [
        { name: "side", restartPolicy: "Always", resources: { requests: { memory: "512Mi" } } },
        { name: "init", resources: { requests: { memory: "1Gi" } } },
      ],
    });
    assert.deepEqual(podOomScoreAdjustments(p, NODE_4GI), {
      app: 625, // 1.5Gi → 1000 - 375
      side: 625, // own 1Gi → 750, capped at the regular container's 625
      init: 625,
    });
  });
});
