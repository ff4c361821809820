// The adapter's writes against the fake API server: exactly what is sent (verb, path, content type,
// body, token) and what comes back (done / gone), including a re-created pod under the same name.
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { PodRef } from "../../src/app/cluster/cluster-node-port.js";
import type { FailedPodStatus } from "../../src/app/ports.js";
import type { FakePod } from "../harness/fake-api-server/fake-api-server.js";
import { FIXED_NOW, startHarness, type Harness } from "./cluster-node-harness.js";

const NODE = "datagen-1-35";
const TIME = "2026-06-26T10:20:00Z";
const MESSAGE = "The node was low on resource: memory. Threshold quantity: 250Mi, available: 102400Ki. ";

const STATUS: FailedPodStatus = {
  phase: "Failed",
  reason: "Evicted",
  message: MESSAGE,
  conditions: [
    { type: "DisruptionTarget", status: "True", reason: "TerminationByKubelet", message: MESSAGE },
  ],
};

function refOf(pod: FakePod | undefined): PodRef {
  assert.ok(pod, "pod exists");
  return { namespace: pod.metadata.namespace, name: pod.metadata.name, uid: pod.metadata.uid };
}

/** A fresh running pod on the node, so each test has its own. */
function freshPod(h: Harness, name: string): PodRef {
  const template = h.server.pod("scraper", "e2e-statefulset-0");
  assert.ok(template);
  const pod = structuredClone(template);
  pod.metadata.name = name;
  pod.metadata.uid = `uid-${name}`;
  return refOf(h.server.addPod(pod));
}

describe("writes", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());
  beforeEach(() => {
    h.server.clearFailures();
    h.server.clearRequests();
    h.server.deletion = "at-once";
    h.sleeps.length = 0;
  });

  test("patchPodStatus: strategic-merge PATCH of pods/NAME/status with the uid and the evicted status", async () => {
    const pod = freshPod(h, "patched");
    const before = h.server.pod(pod.namespace, pod.name)?.status?.conditions?.length ?? 0;
    assert.deepEqual(await h.node.patchPodStatus(pod, STATUS), { kind: "done" });

    const [request, ...more] = h.server.requests;
    assert.equal(more.length, 0);
    assert.equal(request?.method, "PATCH");
    assert.equal(request.path, `/api/v1/namespaces/scraper/pods/patched/status`);
    assert.equal(request.contentType, "application/strategic-merge-patch+json");
    assert.equal(request.authorization, `Bearer ${h.server.token}`);
    assert.deepEqual(request.json, {
      metadata: { uid: "uid-patched" },
      status: {
        phase: "Failed",
        reason: "Evicted",
        message: MESSAGE,
        conditions: [
          {
            type: "DisruptionTarget",
            status: "True",
            reason: "TerminationByKubelet",
            message: MESSAGE,
            lastTransitionTime: TIME,
          },
        ],
      },
    });
    const stored = h.server.pod(pod.namespace, pod.name);
    assert.equal(stored?.status?.phase, "Failed");
    assert.equal(stored.status.reason, "Evicted");
    // Conditions merge by type: the pod's own stay, DisruptionTarget is added.
    assert.equal(stored.status.conditions?.length, before + 1);
    assert.equal(
      stored.status.conditions?.find((c) => c.type === "DisruptionTarget")?.reason,
      "TerminationByKubelet",
    );
  });

  test("patchPodStatus for a pod re-created under the same name (other uid) → gone, not retried", async () => {
    const pod = freshPod(h, "recreated");
    const outcome = await h.node.patchPodStatus({ ...pod, uid: "uid-of-the-old-incarnation" }, STATUS);
    assert.deepEqual(outcome, { kind: "gone" });
    assert.equal(h.server.requests.length, 1);
    assert.equal(h.server.pod(pod.namespace, pod.name)?.status?.reason, undefined);
  });

  test("patchPodStatus for a pod that no longer exists → gone", async () => {
    assert.deepEqual(
      await h.node.patchPodStatus({ namespace: "scraper", name: "never-was", uid: "u" }, STATUS),
      { kind: "gone" },
    );
  });

  test("createPodEvent: a core/v1 Event about the pod, from the kubelet on the node", async () => {
    const pod = freshPod(h, "eventful");
    const outcome = await h.node.createPodEvent(pod, {
      type: "Warning",
      reason: "Evicted",
      message: MESSAGE,
    });
    assert.deepEqual(outcome, { kind: "done" });
    const request = h.server.requests.at(-1);
    assert.equal(request?.method, "POST");
    assert.equal(request.path, "/api/v1/namespaces/scraper/events");
    assert.equal(request.contentType, "application/json");
    const name = `eventful.${(BigInt(FIXED_NOW) * 1_000_000n).toString(16)}`;
    assert.deepEqual(request.json, {
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace: "scraper" },
      involvedObject: {
        kind: "Pod",
        namespace: "scraper",
        name: "eventful",
        uid: "uid-eventful",
        apiVersion: "v1",
      },
      reason: "Evicted",
      message: MESSAGE,
      source: { component: "kubelet", host: NODE },
      firstTimestamp: TIME,
      lastTimestamp: TIME,
      count: 1,
      type: "Warning",
      eventTime: null,
      reportingComponent: "kubelet",
      reportingInstance: NODE,
    });
    assert.ok(h.server.events.some((e) => (e.metadata as { name: string }).name === name));
  });

  test("two events about one pod in the same millisecond get different names", async () => {
    const pod = freshPod(h, "twice");
    await h.node.createPodEvent(pod, { type: "Warning", reason: "Evicted", message: "one" });
    await h.node.createPodEvent(pod, { type: "Normal", reason: "Other", message: "two" });
    const names = h.server
      .requestsTo("POST", "/api/v1/namespaces/scraper/events")
      .map((r) => (r.json as { metadata: { name: string } }).metadata.name);
    assert.equal(names.length, 2);
    assert.notEqual(names[0], names[1]);
    assert.equal(
      h.server.events.filter((e) => (e.involvedObject as { name: string }).name === "twice").length,
      2,
    );
  });

  test("an event the server already has (AlreadyExists: an earlier attempt landed) counts as done", async () => {
    const pod = freshPod(h, "landed");
    h.server.fail({
      method: "POST",
      path: "/api/v1/namespaces/scraper/events",
      times: 1,
      response: {
        kind: "status",
        status: 409,
        body: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: 'events "landed.1" already exists',
          reason: "AlreadyExists",
          code: 409,
        },
      },
    });
    assert.deepEqual(await h.node.createPodEvent(pod, { type: "Warning", reason: "Evicted", message: "m" }), {
      kind: "done",
    });
    assert.equal(h.server.requests.length, 1);
  });

  test("deletePod: DELETE with DeleteOptions (grace period, uid precondition)", async () => {
    const pod = freshPod(h, "deleted");
    assert.deepEqual(await h.node.deletePod(pod, 30), { kind: "done" });
    const request = h.server.requests.at(-1);
    assert.equal(request?.method, "DELETE");
    assert.equal(request.path, "/api/v1/namespaces/scraper/pods/deleted");
    assert.equal(request.contentType, "application/json");
    assert.deepEqual(request.json, {
      kind: "DeleteOptions",
      apiVersion: "v1",
      gracePeriodSeconds: 30,
      preconditions: { uid: "uid-deleted" },
    });
    assert.equal(h.server.pod(pod.namespace, pod.name), undefined);
  });

  test("deletePod with a grace period leaves the pod terminating until the node lets go", async () => {
    h.server.deletion = "hold";
    const pod = freshPod(h, "terminating");
    assert.deepEqual(await h.node.deletePod(pod, 45), { kind: "done" });
    const stored = h.server.pod(pod.namespace, pod.name);
    assert.ok(stored?.metadata.deletionTimestamp !== undefined);
    assert.equal(stored.metadata.deletionGracePeriodSeconds, 45);
    // Deleting again while it terminates is accepted; once gone, it is gone.
    assert.deepEqual(await h.node.deletePod(pod, 45), { kind: "done" });
    h.server.finishDeletion(pod.namespace, pod.name);
    assert.deepEqual(await h.node.deletePod(pod, 45), { kind: "gone" });
  });

  test("deletePod never deletes another incarnation: a uid precondition failure → gone, pod kept, no retry", async () => {
    const pod = freshPod(h, "reincarnated");
    const outcome = await h.node.deletePod({ ...pod, uid: "uid-of-the-old-incarnation" }, 0);
    assert.deepEqual(outcome, { kind: "gone" });
    assert.equal(h.server.requests.length, 1);
    assert.ok(h.server.pod(pod.namespace, pod.name) !== undefined);
  });

  test("deletePod of a missing pod → gone", async () => {
    assert.deepEqual(await h.node.deletePod({ namespace: "scraper", name: "never-was", uid: "u" }, 0), {
      kind: "gone",
    });
  });

  test("evictPod: POST pods/NAME/eviction with a policy/v1 Eviction", async () => {
    const pod = freshPod(h, "evicted");
    assert.deepEqual(await h.node.evictPod(pod, 10), { kind: "done" });
    const request = h.server.requests.at(-1);
    assert.equal(request?.method, "POST");
    assert.equal(request.path, "/api/v1/namespaces/scraper/pods/evicted/eviction");
    assert.equal(request.contentType, "application/json");
    assert.equal(request.authorization, `Bearer ${h.server.token}`);
    assert.deepEqual(request.json, {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "evicted", namespace: "scraper" },
      deleteOptions: { gracePeriodSeconds: 10, preconditions: { uid: "uid-evicted" } },
    });
    assert.equal(h.server.pod(pod.namespace, pod.name), undefined);
  });

  test("evictPod of another incarnation or of a missing pod → gone", async () => {
    const pod = freshPod(h, "evict-reincarnated");
    assert.deepEqual(await h.node.evictPod({ ...pod, uid: "old" }, 10), { kind: "gone" });
    assert.ok(h.server.pod(pod.namespace, pod.name) !== undefined);
    assert.deepEqual(await h.node.evictPod({ namespace: "scraper", name: "never-was", uid: "u" }, 10), {
      kind: "gone",
    });
  });

  test("names are escaped in paths", async () => {
    assert.deepEqual(await h.node.deletePod({ namespace: "scraper", name: "a b", uid: "u" }, 0), {
      kind: "gone",
    });
    assert.equal(h.server.requests.at(-1)?.path, "/api/v1/namespaces/scraper/pods/a%20b");
  });
});
