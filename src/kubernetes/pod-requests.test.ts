import { test } from "node:test";
import assert from "node:assert/strict";
import {
  apiTime,
  deleteOptionsBody,
  evictionBody,
  nodePodsPath,
  podPath,
  statusPatchBody,
} from "./pod-requests.js";

const POD = { namespace: "web", name: "api-0", uid: "u-1" };

test("paths escape their segments", () => {
  assert.equal(podPath({ namespace: "a/b", name: "c d" }), "/api/v1/namespaces/a%2Fb/pods/c%20d");
});

test("the pod list and watch select the node by field", () => {
  assert.equal(nodePodsPath("node-a"), "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a");
  const watch = new URL(`http://x${nodePodsPath("node-a", { resourceVersion: "42", timeoutSeconds: 300 })}`);
  assert.deepEqual(Object.fromEntries(watch.searchParams), {
    fieldSelector: "spec.nodeName=node-a",
    watch: "1",
    resourceVersion: "42",
    allowWatchBookmarks: "true",
    timeoutSeconds: "300",
  });
});

test("the status patch carries the uid and stamps the conditions", () => {
  const body = statusPatchBody(
    POD,
    {
      phase: "Failed",
      reason: "Evicted",
      message: "m",
      conditions: [{ type: "DisruptionTarget", status: "True", reason: "TerminationByKubelet" }],
    },
    Date.UTC(2026, 0, 2, 3, 4, 5, 600),
  );
  assert.deepEqual(body, {
    metadata: { uid: "u-1" },
    status: {
      phase: "Failed",
      reason: "Evicted",
      message: "m",
      conditions: [
        {
          type: "DisruptionTarget",
          status: "True",
          reason: "TerminationByKubelet",
          lastTransitionTime: "2026-01-02T03:04:05Z",
        },
      ],
    },
  });
});

test("DeleteOptions and Eviction name this incarnation and the grace period", () => {
  assert.deepEqual(deleteOptionsBody(POD, 0), {
    kind: "DeleteOptions",
    apiVersion: "v1",
    gracePeriodSeconds: 0,
    preconditions: { uid: "u-1" },
  });
  assert.deepEqual(evictionBody(POD, 30), {
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { name: "api-0", namespace: "web" },
    deleteOptions: { gracePeriodSeconds: 30, preconditions: { uid: "u-1" } },
  });
  assert.deepEqual(evictionBody(POD, 30, true), {
    apiVersion: "policy/v1",
    kind: "Eviction",
    metadata: { name: "api-0", namespace: "web" },
    deleteOptions: { gracePeriodSeconds: 30, preconditions: { uid: "u-1" }, dryRun: ["All"] },
  });
});

test("apiTime drops the milliseconds", () => {
  assert.equal(apiTime(Date.UTC(2026, 5, 26, 10, 20, 0, 999)), "2026-06-26T10:20:00Z");
});
