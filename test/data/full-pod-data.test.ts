// A Pod with every field of Kubernetes 1.35–1.37 (test/fixtures/pods/full-pods-1.35.json, built from
// k8s.io/api core/v1 types.go; see its SOURCES.md) decodes without a single issue, and in the middle
// of an in-place resize the requests evictd ranks by are the allocated ones.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { IssueList } from "../../src/core/issues.js";
import type { Pod, ResourceList } from "../../src/core/model.js";
import { decodePodList } from "../../src/core/pod/decode-pod.js";
import { computePodQos, podQos } from "../../src/core/pod/qos.js";
import { podRequests } from "../../src/core/pod/resources.js";
import { formatQuantity } from "../../src/core/quantity.js";
import { REPO_ROOT } from "../support/repo-paths.js";

const FILE = join(REPO_ROOT, "test", "fixtures", "pods", "full-pods-1.35.json");

function show(list: ResourceList | undefined): Record<string, string> | undefined {
  return list === undefined
    ? undefined
    : Object.fromEntries(Object.entries(list).map(([k, v]) => [k, formatQuantity(v)]));
}

function byName(pods: readonly Pod[], name: string): Pod {
  const pod = pods.find((p) => p.name === name);
  assert.ok(pod, `no pod ${name}`);
  return pod;
}

describe("a Pod with every field (1.35–1.37)", () => {
  const issues = new IssueList();
  const pods = decodePodList(JSON.parse(readFileSync(FILE, "utf8")), "pods", issues);

  test("decodes with no issue at all, warnings included", () => {
    assert.deepEqual(issues.items, []);
    assert.deepEqual(
      pods.map((p) => p.key),
      ["shop/web-7c9d5b8f6d-x2kqp", "shop/batch-gated"],
    );
  });

  test("the resized pod: allocated requests in place, the spec's kept beside them, limits the spec's", () => {
    const web = byName(pods, "web-7c9d5b8f6d-x2kqp");
    const [app] = web.containers;
    assert.deepEqual(show(app?.resources.requests), {
      cpu: "500m",
      memory: "1Gi",
      "ephemeral-storage": "1Gi",
    });
    assert.deepEqual(show(app?.desiredRequests), { cpu: "500m", memory: "2Gi", "ephemeral-storage": "1Gi" });
    assert.deepEqual(show(app?.resources.limits), { cpu: "1", memory: "4Gi", "ephemeral-storage": "2Gi" });
    assert.deepEqual(
      web.initContainers.map((c) => [c.name, c.restartPolicy ?? "", c.desiredRequests]),
      [
        ["migrate", "", undefined],
        ["proxy", "Always", undefined],
      ],
    );
    assert.deepEqual(show(web.podResources?.requests), { cpu: "1", memory: "2Gi" });
    assert.deepEqual(show(web.desiredPodRequests), { cpu: "1", memory: "3Gi" });
    assert.deepEqual(show(web.podResources?.limits), { cpu: "2", memory: "6Gi" });
    // Pod-level requests (plus overhead) are what ranking uses; ephemeral-storage is then 0.
    assert.equal(formatQuantity(podRequests(web, "memory")), "2080Mi");
    assert.equal(formatQuantity(podRequests(web, "ephemeral-storage")), "0");
    assert.deepEqual(web.resize, {
      state: "Infeasible",
      message: "Node didn't have enough capacity: memory, requested: 3254779904, capacity: 3221225472",
    });
    assert.equal(web.priority, 100000);
    assert.equal(web.terminationGracePeriodSeconds, 45);
    assert.deepEqual(
      web.volumes.map((v) => v.kind),
      [
        "emptyDir",
        "emptyDir",
        "configMap",
        "secret",
        "persistentVolumeClaim",
        "hostPath",
        "downwardAPI",
        "projected",
        "other",
        "other",
        "other",
      ],
    );
  });

  test("QoS: the class the status carries, and the spec's own computation agrees", () => {
    const web = byName(pods, "web-7c9d5b8f6d-x2kqp");
    const gated = byName(pods, "batch-gated");
    assert.deepEqual([podQos(web), computePodQos(web)], ["Burstable", "Burstable"]);
    assert.deepEqual([podQos(gated), computePodQos(gated)], ["Guaranteed", "Guaranteed"]);
    assert.deepEqual(show(gated.containers[0]?.resources.requests), { cpu: "250m", memory: "512Mi" });
    assert.equal(gated.resize, undefined);
  });
});
