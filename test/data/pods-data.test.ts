// Real pod lists (test/fixtures/real-data/pods-*.json): decode cleanly, recompute the QoS class each pod carries,
// and find the critical pods.
import { REAL_DATA } from "../support/repo-paths.js";
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { IssueList } from "../../src/core/issues.js";
import type { Pod } from "../../src/core/model.js";
import { formatQuantity, quantityNanos } from "../../src/core/quantity.js";
import { isCriticalPod, isNodeCriticalPod, isStaticPod } from "../../src/core/pod/critical.js";
import { decodePodList } from "../../src/core/pod/decode-pod.js";
import { containerOomScoreAdj } from "../../src/core/pod/oom-score-adj.js";
import { computePodQos } from "../../src/core/pod/qos.js";
import { podRequests } from "../../src/core/pod/resources.js";

const DATA = REAL_DATA;

function load(file: string): { raw: unknown; pods: Pod[]; issues: IssueList } {
  const raw: unknown = JSON.parse(readFileSync(path.join(DATA, file), "utf8"));
  const issues = new IssueList();
  return { raw, pods: decodePodList(raw, file, issues), issues };
}

function itemCount(raw: unknown): number {
  return (raw as { items: unknown[] }).items.length;
}

function byName(pods: readonly Pod[], name: string): Pod {
  const pod = pods.find((p) => p.name === name);
  assert.ok(pod, `pod ${name} not found`);
  return pod;
}

const CRITICAL: Record<string, { critical: string[]; static: string[] }> = {
  "pods-1.json": {
    critical: [
      "coredns-7d764666f9-qdcxt",
      "e2e-deployment-79967c5968-8bnn8",
      "e2e-deployment-79967c5968-zjslc",
      "e2e-scraper-5f97dc94d8-vkcjl",
      "etcd-datagen-1-35",
      "kube-apiserver-datagen-1-35",
      "kube-controller-manager-datagen-1-35",
      "kube-proxy-8k9zt",
      "kube-scheduler-datagen-1-35",
      "metrics-server-9d74bb658-c6nnt",
    ],
    static: [
      "etcd-datagen-1-35",
      "kube-apiserver-datagen-1-35",
      "kube-controller-manager-datagen-1-35",
      "kube-scheduler-datagen-1-35",
    ],
  },
  "pods-2.json": {
    critical: [
      "coredns-6f6b679f8f-hktpp",
      "etcd-datagen-1-31",
      "kube-apiserver-datagen-1-31",
      "kube-controller-manager-datagen-1-31",
      "kube-proxy-dhhlf",
      "kube-scheduler-datagen-1-31",
      "metrics-server-7b56b5cf7d-9swk6",
    ],
    static: [
      "etcd-datagen-1-31",
      "kube-apiserver-datagen-1-31",
      "kube-controller-manager-datagen-1-31",
      "kube-scheduler-datagen-1-31",
    ],
  },
  "pods-3.json": { critical: [], static: [] },
};

for (const file of Object.keys(CRITICAL)) {
  describe(file, () => {
    const { raw, pods, issues } = load(file);

    test("every pod decodes without issues", () => {
      assert.deepEqual(issues.items, []);
      assert.equal(pods.length, itemCount(raw));
    });

    test("the QoS class computed from the spec equals the status.qosClass each pod carries", () => {
      for (const pod of pods) {
        assert.ok(pod.statusQosClass, `${pod.key} carries no qosClass`);
        assert.equal(computePodQos(pod), pod.statusQosClass, pod.key);
      }
    });

    test("critical and static pods", () => {
      const names = (f: (p: Pod) => boolean): string[] =>
        pods
          .filter(f)
          .map((p) => p.name)
          .sort();
      assert.deepEqual(names(isCriticalPod), CRITICAL[file]!.critical);
      assert.deepEqual(names(isStaticPod), CRITICAL[file]!.static);
    });
  });
}

describe("details of real pods", () => {
  test("pods-3: the half-byte ephemeral-storage request decodes exactly", () => {
    const { pods } = load("pods-3.json");
    const cassandra = byName(pods, "cassandra-0");
    const request = cassandra.containers[0]!.resources.requests["ephemeral-storage"];
    assert.ok(request);
    assert.equal(quantityNanos(request), 500_000_000n);
    assert.equal(formatQuantity(request), "500m");
    assert.equal(formatQuantity(podRequests(cassandra, "ephemeral-storage")), "500m");
    assert.equal(cassandra.terminationGracePeriodSeconds, 1800);
    assert.equal(cassandra.creationTimestamp, Date.UTC(2019, 8, 27, 16, 21, 28));
    assert.deepEqual(
      cassandra.volumes.map((v) => v.kind),
      ["persistentVolumeClaim", "secret"],
    );
    assert.equal(containerOomScoreAdj(cassandra, cassandra.containers[0]!, 16n * 1024n ** 3n), -997);
  });

  test("pods-1: pod-level resources decide the memory request; node-critical oom adj", () => {
    const { pods } = load("pods-1.json");
    const deployment = byName(pods, "e2e-deployment-79967c5968-8bnn8");
    assert.ok(deployment.podResources);
    assert.equal(formatQuantity(podRequests(deployment, "memory")), "20Mi");
    assert.equal(formatQuantity(podRequests(deployment, "cpu")), "50m");
    assert.equal(isNodeCriticalPod(deployment), true);
    assert.equal(containerOomScoreAdj(deployment, deployment.containers[0]!, 4n * 1024n ** 3n), -997);

    // A plain Burstable pod: 15Mi on a 4Gi node → 1000 - floor(1000 * 15Mi / 4Gi) = 997.
    const statefulset = byName(pods, "e2e-statefulset-0");
    assert.equal(containerOomScoreAdj(statefulset, statefulset.containers[0]!, 4n * 1024n ** 3n), 997);
    // "5M" is decimal: 5000000 bytes.
    const creating = byName(pods, "e2e-container-creating");
    assert.equal(formatQuantity(podRequests(creating, "memory")), "5M");
  });
});
