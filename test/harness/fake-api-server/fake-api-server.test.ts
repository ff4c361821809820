// The fake API server itself, spoken to with plain fetch: authentication, the real payloads, field
// selection, graceful deletion, preconditions, budgets, watches and injected failures. Other suites
// trust it to behave like the API server in these respects.
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { REAL_DATA, startFakeApiServer, type FakeApiServer } from "./fake-api-server.js";

describe("fake API server", () => {
  let server: FakeApiServer;
  const call = (
    method: string,
    p: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Response> =>
    fetch(`${server.url}${p}`, {
      method,
      headers: { Authorization: `Bearer ${server.token}`, "Content-Type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const json = async (response: Response): Promise<Record<string, unknown>> =>
    (await response.json()) as Record<string, unknown>;

  before(async () => {
    server = await startFakeApiServer({ summaryFile: "summary-5.json" });
  });
  after(() => server.close());
  beforeEach(() => {
    server.clearFailures();
    server.clearRequests();
    server.deletion = "at-once";
  });

  test("requires the bearer token: a 401 Status on API paths, plain text on kubelet paths", async () => {
    const api = await fetch(`${server.url}/api/v1/nodes/${server.nodeName}`);
    assert.equal(api.status, 401);
    assert.deepEqual(await api.json(), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Unauthorized",
      reason: "Unauthorized",
      code: 401,
    });
    const kubelet = await fetch(`${server.url}/stats/summary`, {
      headers: { Authorization: "Bearer wrong" },
    });
    assert.equal(kubelet.status, 401);
    assert.equal(await kubelet.text(), "Unauthorized\n");
    assert.deepEqual(
      server.requests.map((r) => r.authorization),
      [undefined, "Bearer wrong"],
    );
  });

  test("serves the Summary as raw text, so uint64 values keep their digits", async () => {
    const text = await (await call("GET", `/api/v1/nodes/${server.nodeName}/proxy/stats/summary`)).text();
    assert.equal(text, readFileSync(path.join(REAL_DATA, "summary-5.json"), "utf8"));
    assert.ok(text.includes('"inodesFree": 18446744073709551615'));
  });

  test("configz wraps the KubeletConfiguration without apiVersion and kind", async () => {
    const body = await json(await call("GET", "/configz"));
    const config = body.kubeletconfig as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ["kubeletconfig"]);
    assert.equal(config.kind, undefined);
    assert.equal(config.evictionPressureTransitionPeriod, "30s");
  });

  test("lists pods by spec.nodeName and refuses other field selectors", async () => {
    const all = await json(await call("GET", "/api/v1/pods"));
    const mine = await json(
      await call(
        "GET",
        `/api/v1/pods?fieldSelector=${encodeURIComponent(`spec.nodeName=${server.nodeName}`)}`,
      ),
    );
    const none = await json(
      await call("GET", `/api/v1/pods?fieldSelector=${encodeURIComponent("spec.nodeName=other")}`),
    );
    assert.equal((all.items as unknown[]).length, 24);
    assert.equal((mine.items as unknown[]).length, 24);
    assert.equal((none.items as unknown[]).length, 0);
    assert.equal(
      (mine.metadata as { resourceVersion: string }).resourceVersion,
      server.state.resourceVersion,
    );
    assert.equal(
      (await call("GET", `/api/v1/pods?fieldSelector=${encodeURIComponent("status.phase=Running")}`)).status,
      400,
    );
  });

  test("DELETE checks the uid precondition with the API server's wording", async () => {
    const response = await call("DELETE", "/api/v1/namespaces/scraper/pods/e2e-statefulset-1", {
      kind: "DeleteOptions",
      apiVersion: "v1",
      preconditions: { uid: "stale" },
    });
    assert.equal(response.status, 409);
    const body = await json(response);
    assert.equal(body.reason, "Conflict");
    assert.match(
      body.message as string,
      /^Operation cannot be fulfilled on Pod "e2e-statefulset-1": the UID in the precondition \(stale\) does not match the UID in record \(.+\)\. The object might have been deleted and then recreated$/,
    );
    assert.ok(server.pod("scraper", "e2e-statefulset-1"));
  });

  test("graceful deletion: hold keeps the pod terminating, after-grace removes it once the grace period passed", async () => {
    server.deletion = "hold";
    const held = await json(
      await call("DELETE", "/api/v1/namespaces/scraper/pods/e2e-deployment-79967c5968-8bnn8", {
        gracePeriodSeconds: 30,
      }),
    );
    assert.equal((held.metadata as { deletionGracePeriodSeconds: number }).deletionGracePeriodSeconds, 30);
    assert.ok(server.pod("scraper", "e2e-deployment-79967c5968-8bnn8")?.metadata.deletionTimestamp);
    server.finishDeletion("scraper", "e2e-deployment-79967c5968-8bnn8");
    assert.equal(server.pod("scraper", "e2e-deployment-79967c5968-8bnn8"), undefined);

    server.deletion = "after-grace";
    await call("DELETE", "/api/v1/namespaces/scraper/pods/e2e-deployment-79967c5968-zjslc", {
      gracePeriodSeconds: 1,
    });
    assert.ok(server.pod("scraper", "e2e-deployment-79967c5968-zjslc"));
    await new Promise((r) => setTimeout(r, 1100));
    assert.equal(server.pod("scraper", "e2e-deployment-79967c5968-zjslc"), undefined);
  });

  test("a pod in a terminal phase is deleted at once whatever the grace period (CheckGracefulDelete)", async () => {
    server.deletion = "hold";
    assert.equal(server.pod("scraper", "e2e-cronjob-29707813-dhlr2")?.status?.phase, "Succeeded");
    await call("DELETE", "/api/v1/namespaces/scraper/pods/e2e-cronjob-29707813-dhlr2", {
      gracePeriodSeconds: 30,
    });
    assert.equal(server.pod("scraper", "e2e-cronjob-29707813-dhlr2"), undefined);
    // A running pod marked Failed (as the kubelet's status would say) goes at once too.
    server.modifyPod("scraper", "e2e-hpa-6cd8d99884-tggnr", (p) => {
      p.status = { ...p.status, phase: "Failed" };
    });
    await call("DELETE", "/api/v1/namespaces/scraper/pods/e2e-hpa-6cd8d99884-tggnr", {
      gracePeriodSeconds: 30,
    });
    assert.equal(server.pod("scraper", "e2e-hpa-6cd8d99884-tggnr"), undefined);
  });

  test("the kubelet's deletion: the pod terminates until its containers stop, then reports Failed and goes", async () => {
    server.deletion = { containersStopInMs: 200 };
    const seen: string[] = [];
    await call("DELETE", "/api/v1/namespaces/kube-system/pods/storage-provisioner", {
      gracePeriodSeconds: 30,
    });
    const terminating = server.pod("kube-system", "storage-provisioner");
    assert.ok(terminating?.metadata.deletionTimestamp);
    assert.equal(terminating.status?.phase, "Running");
    for (let i = 0; i < 100 && server.pod("kube-system", "storage-provisioner") !== undefined; i++) {
      seen.push(String(server.pod("kube-system", "storage-provisioner")?.status?.phase));
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(server.pod("kube-system", "storage-provisioner"), undefined);
    assert.ok(seen.length >= 10, `removed after ${seen.length * 10} ms`);
    server.deletion = "at-once";
  });

  test("a blocking budget refuses evictions of running pods with 429 and a DisruptionBudget cause", async () => {
    server.blockEvictions({ name: "pdb", desiredHealthy: 1, currentHealthy: 1 });
    try {
      const running = server.pod("kube-system", "coredns-7d764666f9-qdcxt");
      assert.equal(running?.status?.phase, "Running");
      const response = await call(
        "POST",
        "/api/v1/namespaces/kube-system/pods/coredns-7d764666f9-qdcxt/eviction",
        {
          apiVersion: "policy/v1",
          kind: "Eviction",
          metadata: { name: "coredns-7d764666f9-qdcxt", namespace: "kube-system" },
        },
      );
      assert.equal(response.status, 429);
      const body = await json(response);
      assert.deepEqual((body.details as { causes: unknown }).causes, [
        {
          reason: "DisruptionBudget",
          message: "The disruption budget pdb needs 1 healthy pods and has 1 currently",
        },
      ]);
    } finally {
      server.allowEvictions();
    }
  });

  test("a watch from resourceVersion 0 starts with the node's pods; later changes follow", async () => {
    const response = await call(
      "GET",
      `/api/v1/pods?watch=1&resourceVersion=0&fieldSelector=${encodeURIComponent(`spec.nodeName=${server.nodeName}`)}`,
    );
    assert.equal(response.status, 200);
    await server.waitForWatchers(1);
    server.modifyPod("scraper", "e2e-statefulset-1", (p) => {
      p.metadata.labels = { touched: "1" };
    });
    server.endWatches();
    const lines = (await response.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    assert.equal(lines.filter((l) => l.type === "ADDED").length, server.state.pods(server.nodeName).length);
    assert.equal(lines.at(-1)?.type, "MODIFIED");
  });

  test("injected failures match method, path and query, and run out after `times`", async () => {
    server.fail({
      method: "GET",
      path: "/api/v1/pods",
      query: { watch: "1" },
      times: 1,
      response: { kind: "status", status: 503 },
    });
    server.fail({
      method: "GET",
      path: /^\/api\/v1\/nodes\//,
      times: 2,
      response: { kind: "status", status: 429, headers: { "Retry-After": "0" } },
    });
    assert.equal((await call("GET", "/api/v1/pods")).status, 200);
    const throttled = await call("GET", `/api/v1/nodes/${server.nodeName}`);
    assert.equal(throttled.status, 429);
    assert.equal(throttled.headers.get("retry-after"), "0");
    assert.equal((await json(throttled)).reason, "TooManyRequests");
    assert.equal((await call("GET", `/api/v1/nodes/${server.nodeName}`)).status, 429);
    assert.equal((await call("GET", `/api/v1/nodes/${server.nodeName}`)).status, 200);
    server.fail({ path: "/configz", times: 1, response: { kind: "close" } });
    await assert.rejects(call("GET", "/configz"));
    assert.equal((await call("GET", "/configz")).status, 200);
  });

  test("a 403 injected without a body reads like the authorizer's", async () => {
    server.fail({ path: /.*/, times: 1, response: { kind: "status", status: 403 } });
    const body = await json(await call("POST", "/api/v1/namespaces/web/pods/api-0/eviction", {}));
    assert.equal(
      body.message,
      'pods "api-0" is forbidden: User "system:serviceaccount:kube-system:evictd" cannot create resource "pods/eviction" in API group "" in the namespace "web"',
    );
  });
});
