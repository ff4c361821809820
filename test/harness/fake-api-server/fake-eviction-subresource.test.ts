// The fake API server's eviction subresource with PodDisruptionBudgets, spoken to with plain fetch:
// budgets declared with minAvailable / maxUnavailable, the disruption controller's status, the
// 429 of a budget that allows no disruption, the 500 of two budgets, and dry runs that check the
// budget without deleting the pod or recording the disruption
// (pkg/registry/core/pod/storage/eviction.go, pkg/controller/disruption/disruption.go).
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { startFakeApiServer, type FakeApiServer, type FakePod } from "./fake-api-server.js";

describe("fake API server: evictions and PodDisruptionBudgets", () => {
  let server: FakeApiServer;
  const call = async (
    method: string,
    p: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${server.url}${p}`, {
      method,
      headers: { Authorization: `Bearer ${server.token}`, "Content-Type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const evict = (pod: string, dryRun: boolean, query = ""): ReturnType<typeof call> =>
    call("POST", `/api/v1/namespaces/web/pods/${pod}/eviction${query}`, {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: pod, namespace: "web" },
      deleteOptions: dryRun ? { dryRun: ["All"] } : {},
    });
  /** A running pod of app `app` in namespace web, Ready or not. */
  const addPod = (name: string, app: string, ready = true): FakePod => {
    const template = server.pod("scraper", "e2e-statefulset-0");
    assert.ok(template);
    const pod = structuredClone(template);
    pod.metadata = { name, namespace: "web", uid: randomUUID(), labels: { app } };
    pod.status = {
      ...pod.status,
      phase: "Running",
      conditions: [{ type: "Ready", status: ready ? "True" : "False" }],
    };
    return server.addPod(pod);
  };

  before(async () => {
    server = await startFakeApiServer();
  });
  after(() => server.close());
  beforeEach(() => server.clearRequests());

  test("minAvailable: status as the disruption controller computes it; no disruption allowed → 429 with the budget named, dry run or not", async () => {
    addPod("db-0", "db");
    addPod("db-1", "db");
    server.addPodDisruptionBudget({
      name: "db-pdb",
      namespace: "web",
      matchLabels: { app: "db" },
      minAvailable: 2,
    });
    assert.deepEqual(server.podDisruptionBudgetStatus("web", "db-pdb"), {
      expectedPods: 2,
      desiredHealthy: 2,
      currentHealthy: 2,
      disruptionsAllowed: 0,
      disruptedPods: {},
    });
    for (const dryRun of [true, false]) {
      const refused = await evict("db-0", dryRun);
      assert.equal(refused.status, 429);
      assert.deepEqual(refused.body, {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "Cannot evict pod as it would violate the pod's disruption budget.",
        reason: "TooManyRequests",
        details: {
          causes: [
            {
              reason: "DisruptionBudget",
              message: "The disruption budget db-pdb needs 2 healthy pods and has 2 currently",
            },
          ],
        },
        code: 429,
      });
    }
    assert.ok(server.pod("web", "db-0"));
  });

  test("a dry run the budget allows: 201 Success, the pod untouched and nothing recorded; the real eviction then records and deletes", async () => {
    addPod("api-0", "api");
    addPod("api-1", "api");
    addPod("api-2", "api");
    server.addPodDisruptionBudget({
      name: "api-pdb",
      namespace: "web",
      matchLabels: { app: "api" },
      maxUnavailable: 1,
    });
    const before = server.pod("web", "api-0");
    const dry = await evict("api-0", true);
    assert.deepEqual([dry.status, dry.body.status, dry.body.code], [201, "Success", 201]);
    assert.deepEqual(server.pod("web", "api-0"), before, "not deleted, not marked DisruptionTarget");
    assert.equal(server.podDisruptionBudgetStatus("web", "api-pdb")?.disruptionsAllowed, 1);
    // `?dryRun=All` in the query is the same dry run (propagateDryRun).
    assert.equal((await evict("api-0", false, "?dryRun=All")).status, 201);
    assert.ok(server.pod("web", "api-0"));

    server.deletion = "hold";
    try {
      assert.equal((await evict("api-0", false)).status, 201);
      const evicted = server.pod("web", "api-0");
      assert.ok(evicted?.metadata.deletionTimestamp !== undefined);
      assert.equal(
        evicted.status?.conditions?.find((c) => c.type === "DisruptionTarget")?.reason,
        "EvictionByEvictionAPI",
      );
      // Terminating, it no longer counts as healthy: the budget is spent.
      const status = server.podDisruptionBudgetStatus("web", "api-pdb");
      assert.deepEqual([status?.currentHealthy, status?.disruptionsAllowed], [2, 0]);
      assert.equal((await evict("api-1", true)).status, 429);
    } finally {
      server.finishDeletion("web", "api-0");
      server.deletion = "at-once";
    }
  });

  test("an unready pod goes while the budget is whole; a pod two budgets select is a 500", async () => {
    addPod("queue-0", "queue");
    addPod("queue-1", "queue");
    addPod("queue-2", "queue", false);
    server.addPodDisruptionBudget({
      name: "queue-pdb",
      namespace: "web",
      matchLabels: { app: "queue" },
      minAvailable: 2,
    });
    assert.equal((await evict("queue-2", true)).status, 201);
    assert.equal((await evict("queue-1", true)).status, 429);
    server.addPodDisruptionBudget({
      name: "queue-pdb-2",
      namespace: "web",
      matchLabels: { app: "queue" },
      minAvailable: "50%",
    });
    const twice = await evict("queue-1", true);
    assert.equal(twice.status, 500);
    assert.deepEqual(twice.body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message:
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
      code: 500,
    });
  });

  test("dry-run options that disagree between query and body are refused", async () => {
    addPod("x-0", "x");
    const r = await evict("x-0", true, "?dryRun=None");
    assert.equal(r.status, 500);
    assert.match(r.body.message as string, /Non-matching dry-run options/);
  });
});
