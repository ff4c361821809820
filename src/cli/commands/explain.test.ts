// `evictd explain` on a node where a pod's in-place resize is not allocated: the ranking uses the
// allocated request, and both the JSON and the table show it beside the one the spec asks.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { explainNode, type NodeExplanation } from "../../app/node-view/explain-node.js";
import { buildEvictionConfig } from "../../core/config/build-eviction-config.js";
import type { IssueList } from "../../core/issues.js";
import type { NodeSummary } from "../../core/model.js";
import { decodePod } from "../../core/pod/decode-pod.js";
import { renderExplanation } from "./explain.js";

const Mi = 1024n * 1024n;
const NOW = Date.UTC(2026, 5, 26, 12, 0, 0);
const INFEASIBLE = "Node didn't have enough capacity: memory, requested: 2147483648, capacity: 1610612736";

const pods = [
  {
    metadata: { name: "web", namespace: "shop", uid: "u-web" },
    spec: { containers: [{ name: "app", resources: { requests: { memory: "2Gi" } } }] },
    status: {
      phase: "Running",
      containerStatuses: [{ name: "app", allocatedResources: { memory: "1Gi" } }],
      conditions: [{ type: "PodResizePending", status: "True", reason: "Infeasible", message: INFEASIBLE }],
    },
  },
  {
    metadata: { name: "db", namespace: "shop", uid: "u-db" },
    spec: { containers: [{ name: "pg", resources: { requests: { memory: "256Mi" } } }] },
    status: { phase: "Running" },
  },
];

const podStats = (name: string, uid: string, ws: bigint) => ({
  podRef: { name, namespace: "shop", uid },
  memory: { time: NOW, workingSetBytes: ws },
  containers: [],
  volumes: [],
});

const summary: NodeSummary = {
  node: {
    nodeName: "node-a",
    systemContainers: [],
    memory: { time: NOW, availableBytes: 200n * Mi, workingSetBytes: 1400n * Mi },
  },
  pods: [podStats("web", "u-web", 700n * Mi), podStats("db", "u-db", 300n * Mi)],
};

function explain(evictionHard: Record<string, string> = { "memory.available": "100Mi" }): NodeExplanation {
  const config = buildEvictionConfig({
    config: {
      apiVersion: "kubelet.config.k8s.io/v1beta1",
      kind: "KubeletConfiguration",
      evictionHard,
    },
  });
  assert.ok(config.ok);
  return explainNode({
    nodeName: "node-a",
    source: "test",
    now: NOW,
    config: config.config,
    sample: { raw: {}, summary },
    node: {},
    pods,
    decodePod: (raw: unknown, issues: IssueList) => decodePod(raw, "pod", issues),
  });
}

describe("explain: a pod whose resize is not allocated", () => {
  test("JSON: ranked by the allocated request, both requests and the resize in the entry", () => {
    const view = JSON.parse(JSON.stringify(explain())) as NodeExplanation;
    // db exceeds its 256Mi request; web's 700Mi is within the 1Gi allocated (not the 2Gi asked).
    assert.deepEqual(
      view.ranking?.order.map((o) => o.pod),
      ["shop/db", "shop/web"],
    );
    const web = view.ranking?.order[1];
    assert.deepEqual(web?.allocation, {
      resource: "memory",
      allocated: "1Gi",
      desired: "2Gi",
      resize: { state: "Infeasible", message: INFEASIBLE },
    });
    assert.equal(
      web?.reason,
      "working set 700Mi against a request of 1Gi (within its request), priority 0; " +
        `memory request 1Gi allocated (spec asks 2Gi, resize Infeasible: ${INFEASIBLE})`,
    );
    assert.equal(view.ranking?.order[0]?.allocation, undefined, "db's spec and allocation agree");
  });

  test("table: the WHY HERE column says both", () => {
    const text = renderExplanation(explain());
    assert.match(text, /eviction order for memory\.available; next: shop\/db/);
    const line = text.split("\n").find((l) => l.includes("shop/web"));
    assert.ok(line, text);
    assert.ok(
      line.includes(`memory request 1Gi allocated (spec asks 2Gi, resize Infeasible: ${INFEASIBLE})`),
      line,
    );
  });
});

describe("explain: thresholds in the table", () => {
  const thresholdCell = (text: string): string | undefined =>
    /^memory\.available\s+\S+ of \S+\s+(.+?)\s{2,}-\s+\S+$/m.exec(text)?.[1];

  test("a quantity as written", () => {
    assert.equal(thresholdCell(renderExplanation(explain())), "hard < 100Mi");
  });

  test("a percentage as written, with the bytes it comes to in binary units (not a raw byte count)", () => {
    // 10% of 1600Mi in the kubelet's float32 arithmetic: 167772162 bytes.
    const view = explain({ "memory.available": "10%" });
    assert.equal(view.signals[0]?.thresholds[0]?.quantity, "167772162", "/status keeps the exact figure");
    assert.equal(thresholdCell(renderExplanation(view)), "hard < 10% (160 MiB)");
  });
});
