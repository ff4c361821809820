/** podStatusView: a v1 Pod's status as the views show it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { IssueList } from "../../core/issues.js";
import { decodePod } from "../../core/pod/decode-pod.js";
import { podStatusView } from "./pod-status-view.js";

const RAW = {
  metadata: { name: "web", namespace: "shop", uid: "u1" },
  spec: { containers: [{ name: "app", image: "nginx", resources: { requests: { memory: "64Mi" } } }] },
  status: {
    phase: "Failed",
    reason: "Evicted",
    message: "The node was low on resource: memory.",
    conditions: [
      { type: "DisruptionTarget", status: "True", reason: "TerminationByKubelet" },
      { type: 5, status: "True" },
      "Ready",
    ],
  },
};

function decoded(raw: unknown): NonNullable<ReturnType<typeof decodePod>> {
  const pod = decodePod(raw, "pod", new IssueList());
  assert.ok(pod !== undefined);
  return pod;
}

test("phase, reason, message and the well-formed conditions; QoS from the pod", () => {
  const view = podStatusView(RAW, decoded(RAW));
  assert.equal(view.phase, "Failed");
  assert.equal(view.reason, "Evicted");
  assert.equal(view.message, "The node was low on resource: memory.");
  assert.deepEqual(view.conditions, [
    { type: "DisruptionTarget", status: "True", reason: "TerminationByKubelet" },
  ]);
  assert.equal(view.qosClass, "Burstable");
  assert.deepEqual(view.restarts, {});
});

test("no status: Pending, as the API server defaults it, without conditions", () => {
  const raw = { metadata: RAW.metadata, spec: RAW.spec };
  const view = podStatusView(raw, decoded(raw));
  assert.equal(view.phase, "Pending");
  assert.equal(view.reason, undefined);
  assert.deepEqual(view.conditions, []);
});
