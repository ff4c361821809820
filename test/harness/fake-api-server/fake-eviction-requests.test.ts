// The fake API server's EvictionRequests (lifecycle.k8s.io/v1alpha1), spoken to with plain fetch:
// not served unless enabled (the generic 404), validated as upstream's types and validation say,
// AlreadyExists for a second create, and the stand-in for the controller and the imperative
// evictor that evicts the target through the eviction subresource.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startFakeApiServer, type FakeApiServer } from "./fake-api-server.js";
import { waitUntil } from "../node-harness.js";

describe("fake API server: EvictionRequests", () => {
  let server: FakeApiServer;
  const path = "/apis/lifecycle.k8s.io/v1alpha1/namespaces/web/evictionrequests";
  const post = async (body: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${server.token}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const request = (pod: { name: string; uid: string }, requester = "evictd.io/node-pressure"): unknown => ({
    apiVersion: "lifecycle.k8s.io/v1alpha1",
    kind: "EvictionRequest",
    metadata: { name: `evictd-${pod.uid}`, namespace: "web" },
    spec: { target: { pod }, requester, intent: "Eviction" },
  });
  const addPod = (name: string): { name: string; uid: string } => {
    const template = server.pod("scraper", "e2e-statefulset-0");
    assert.ok(template);
    const pod = structuredClone(template);
    pod.metadata = { name, namespace: "web", uid: randomUUID(), labels: { app: name } };
    return { name, uid: server.addPod(pod).metadata.uid };
  };

  before(async () => {
    server = await startFakeApiServer();
  });
  after(() => server.close());

  test("not served by default: the server's generic 404", async () => {
    const r = await post(request(addPod("unserved")));
    assert.equal(r.status, 404);
    assert.deepEqual(
      [r.body.reason, r.body.message],
      ["NotFound", "the server could not find the requested resource"],
    );
  });

  test("served: stored with its status cleared; a second create is AlreadyExists; invalid ones are 422", async () => {
    server.serveEvictionRequests(true);
    server.evictionRequestResponder = "none";
    try {
      const pod = addPod("kept");
      const created = await post({ ...(request(pod) as object), status: { conditions: [{ type: "X" }] } });
      assert.equal(created.status, 201);
      const metadata = created.body.metadata as Record<string, unknown>;
      assert.equal(metadata.name, `evictd-${pod.uid}`);
      assert.equal(metadata.generation, 1);
      assert.deepEqual(created.body.status, {});
      const again = await post(request(pod));
      assert.deepEqual([again.status, again.body.reason], [409, "AlreadyExists"]);
      assert.equal(
        again.body.message,
        `evictionrequests.lifecycle.k8s.io "evictd-${pod.uid}" already exists`,
      );
      const reserved = await post(request(addPod("reserved"), "kubelet.k8s.io/eviction"));
      assert.equal(reserved.status, 422);
      assert.match(reserved.body.message as string, /spec\.requester: .*reserved/);
      const notUuid = await post(request({ name: "kept", uid: "uid-kept" }));
      assert.equal(notUuid.status, 422);
      assert.match(notUuid.body.message as string, /spec\.target\.pod\.uid/);
      assert.ok(server.pod("web", "kept"), "no responder: the pod stays");
    } finally {
      server.serveEvictionRequests(false);
      server.evictionRequestResponder = "evict";
    }
  });

  test("the imperative evictor's stand-in evicts the target through the eviction subresource, budgets included", async () => {
    server.serveEvictionRequests(true);
    try {
      const free = addPod("free");
      const guarded = addPod("guarded");
      server.addPodDisruptionBudget({
        name: "guarded",
        namespace: "web",
        matchLabels: { app: "guarded" },
        minAvailable: 1,
      });
      assert.equal((await post(request(free))).status, 201);
      assert.equal((await post(request(guarded))).status, 201);
      await waitUntil(
        "the free pod evicted",
        () => (server.pod("web", "free") === undefined ? true : undefined),
        5000,
      );
      const done = server.evictionRequests.find(
        (r) => (r.metadata as { name: string }).name === `evictd-${free.uid}`,
      );
      assert.deepEqual(
        ((done?.status as { conditions: { type: string }[] }).conditions ?? []).map((c) => c.type),
        ["TargetEvicted"],
      );
      assert.ok(
        server.requests.some((r) => r.path === "/api/v1/namespaces/web/pods/free/eviction") === false,
        "the controller's eviction is internal, not a request evictd made",
      );
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(server.pod("web", "guarded"), "its budget holds");
    } finally {
      server.serveEvictionRequests(false);
    }
  });
});
