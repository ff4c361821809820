// Failures against the fake API server: what is retried (409, 429 with Retry-After, 5xx, reset
// connections) and how long, what is final (401/403/404/422, a PDB that keeps blocking), and the
// messages a user gets for each, for reads and writes.
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { PodRef, WriteOutcome } from "../../src/app/cluster/cluster-node-port.js";
import { KubeApiError } from "../../src/kubernetes/kube-api-error.js";
import type { RetryNotice } from "../../src/kubernetes/kube-client.js";
import type { InjectedResponse } from "../harness/fake-api-server/fake-api-server.js";
import { startHarness, type Harness } from "./cluster-node-harness.js";

const NODE = "datagen-1-35";
const SUMMARY_PATH = `/api/v1/nodes/${NODE}/proxy/stats/summary`;

function freshPod(h: Harness, name: string): PodRef {
  const template = h.server.pod("scraper", "e2e-statefulset-0");
  assert.ok(template);
  const pod = structuredClone(template);
  pod.metadata.name = name;
  pod.metadata.uid = `uid-${name}`;
  h.server.addPod(pod);
  return { namespace: "scraper", name, uid: `uid-${name}` };
}

function refused(outcome: WriteOutcome): { status: number | undefined; message: string } {
  assert.equal(outcome.kind, "refused", `expected refused, got ${JSON.stringify(outcome)}`);
  return outcome.kind === "refused" ? outcome : { status: undefined, message: "" };
}

describe("transient failures are retried with backoff", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());
  beforeEach(() => {
    h.server.clearFailures();
    h.server.clearRequests();
    h.sleeps.length = 0;
  });

  const cases: { name: string; response: InjectedResponse; sleeps: number[] }[] = [
    { name: "409 Conflict", response: { kind: "status", status: 409 }, sleeps: [250, 500] },
    {
      name: "429 with Retry-After: 0",
      response: { kind: "status", status: 429, headers: { "Retry-After": "0" } },
      sleeps: [0, 0],
    },
    {
      name: "429 with Retry-After: 2",
      response: { kind: "status", status: 429, headers: { "Retry-After": "2" } },
      sleeps: [2000, 2000],
    },
    { name: "429 without Retry-After", response: { kind: "status", status: 429 }, sleeps: [250, 500] },
    { name: "500 Internal Server Error", response: { kind: "status", status: 500 }, sleeps: [250, 500] },
    { name: "503 Service Unavailable", response: { kind: "status", status: 503 }, sleeps: [250, 500] },
    { name: "a reset connection", response: { kind: "close" }, sleeps: [250, 500] },
  ];
  for (const c of cases) {
    test(`DELETE after two × ${c.name} → done on the third attempt`, async () => {
      const pod = freshPod(
        h,
        `retry-${c.sleeps.join("-")}-${c.response.kind}-${"status" in c.response ? c.response.status : 0}`,
      );
      h.server.clearRequests();
      h.server.fail({
        method: "DELETE",
        path: `/api/v1/namespaces/scraper/pods/${pod.name}`,
        times: 2,
        response: c.response,
      });
      assert.deepEqual(await h.node.deletePod(pod, 0), { kind: "done" });
      const deletes = h.server.requestsTo("DELETE");
      assert.equal(deletes.length, 3);
      // Every attempt is the same request.
      assert.ok(
        deletes.every((r) => r.body === deletes[0]?.body && r.authorization === `Bearer ${h.server.token}`),
      );
      assert.deepEqual(h.sleeps, c.sleeps);
      assert.equal(h.server.pod(pod.namespace, pod.name), undefined);
    });

    test(`summary read after two × ${c.name} → the Summary`, async () => {
      h.server.fail({ method: "GET", path: SUMMARY_PATH, times: 2, response: c.response });
      const summary = (await h.node.summary()) as { node: { nodeName: string } };
      assert.equal(summary.node.nodeName, NODE);
      assert.equal(h.server.requestsTo("GET", SUMMARY_PATH).length, 3);
      assert.deepEqual(h.sleeps, c.sleeps);
    });
  }

  test("attempts are bounded: 503 forever → refused after 5 attempts with doubling waits", async () => {
    const pod = freshPod(h, "always-503");
    h.server.fail({ method: "PATCH", path: /\/status$/, response: { kind: "status", status: 503 } });
    const r = refused(
      await h.node.patchPodStatus(pod, { phase: "Failed", reason: "Evicted", message: "m", conditions: [] }),
    );
    assert.equal(r.status, 503);
    assert.equal(
      r.message,
      "503 Service Unavailable from PATCH /api/v1/namespaces/scraper/pods/always-503/status: the server is currently unable to handle the request (after 5 attempts)",
    );
    assert.equal(h.server.requestsTo("PATCH").length, 5);
    assert.deepEqual(h.sleeps, [250, 500, 1000, 2000]);
  });

  test("reads that keep failing throw a transient KubeApiError with status and URL", async () => {
    h.server.fail({ path: SUMMARY_PATH, response: { kind: "status", status: 503 } });
    await assert.rejects(h.node.summary(), (e: unknown) => {
      assert.ok(e instanceof KubeApiError);
      assert.equal(e.code, "kube-http");
      assert.equal(e.status, 503);
      assert.equal(e.transient, true);
      assert.equal(e.method, "GET");
      assert.equal(e.url, `${h.server.url}${SUMMARY_PATH}`);
      assert.equal(
        e.message,
        `503 Service Unavailable from GET ${SUMMARY_PATH}: the server is currently unable to handle the request (after 5 attempts)`,
      );
      return true;
    });
    assert.equal(h.server.requestsTo("GET", SUMMARY_PATH).length, 5);
  });

  test("the total waiting time is capped", async () => {
    const capped = await h.connect({ retry: { jitter: 0, totalDelayMs: 600 } });
    h.server.fail({ path: SUMMARY_PATH, response: { kind: "status", status: 500 } });
    await assert.rejects(capped.summary(), KubeApiError);
    // 250 fits, 250 + 500 would exceed 600: two attempts, one wait.
    assert.deepEqual(h.sleeps, [250]);
    assert.equal(h.server.requestsTo("GET", SUMMARY_PATH).length, 2);
  });

  test("a Retry-After beyond the longest single wait is capped", async () => {
    h.server.fail({
      path: SUMMARY_PATH,
      times: 1,
      response: { kind: "status", status: 429, headers: { "Retry-After": "3600" } },
    });
    await h.node.summary();
    assert.deepEqual(h.sleeps, [10_000]);
  });

  test("jitter shortens waits by at most its fraction", async () => {
    const jittery = await h.connect({ retry: { jitter: 0.5 }, random: () => 0.5 });
    h.server.fail({ path: SUMMARY_PATH, times: 2, response: { kind: "status", status: 503 } });
    await jittery.summary();
    assert.deepEqual(h.sleeps, [188, 375]);
  });

  test("a timeout is retried, then reported as such", async () => {
    const impatient = await h.connect({ requestTimeoutMs: 100, retry: { jitter: 0, attempts: 2 } });
    h.server.fail({ path: SUMMARY_PATH, response: { kind: "hang" } });
    await assert.rejects(impatient.summary(), (e: unknown) => {
      assert.ok(e instanceof KubeApiError);
      assert.equal(e.code, "kube-timeout");
      assert.match(
        e.message,
        /^cannot reach the API server at http:\/\/127\.0\.0\.1:\d+: ETIMEDOUT: no response within 100ms \(GET \/api\/v1\/nodes\/datagen-1-35\/proxy\/stats\/summary, 2 attempts\)$/,
      );
      return true;
    });
    assert.equal(h.server.requestsTo("GET", SUMMARY_PATH).length, 2);
  });
});

describe("retries are told and bounded in time", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());
  beforeEach(() => {
    h.server.clearFailures();
    h.server.clearRequests();
    h.sleeps.length = 0;
  });

  test("every retry is told before its wait: what failed, the attempt, and when the next goes", async () => {
    const notices: RetryNotice[] = [];
    const told = await h.connect({ onRetry: (n) => notices.push(n) });
    h.server.fail({ path: SUMMARY_PATH, times: 2, response: { kind: "status", status: 503 } });
    await told.summary();
    assert.deepEqual(
      notices.map((n) => n.message),
      [1, 2].map(
        (attempt) =>
          `GET ${SUMMARY_PATH} on the API server at ${h.server.url} failed: 503 Service Unavailable: the server is currently unable to handle the request (attempt ${attempt} of at most 5); retrying in ${attempt * 250}ms`,
      ),
    );
    assert.deepEqual(
      notices.map((n) => [n.method, n.path, n.attempt, n.maxAttempts, n.retryInMs]),
      [
        ["GET", SUMMARY_PATH, 1, 5, 250],
        ["GET", SUMMARY_PATH, 2, 5, 500],
      ],
    );
  });

  test("a server that accepts and never answers: timeouts count against the budget, and no retry starts that another timeout would not fit", async () => {
    const notices: RetryNotice[] = [];
    const impatient = await h.connect({
      requestTimeoutMs: 100,
      retry: { jitter: 0, baseDelayMs: 10, totalDelayMs: 250 },
      onRetry: (n) => notices.push(n),
    });
    h.server.fail({ path: SUMMARY_PATH, response: { kind: "hang" } });
    await assert.rejects(
      impatient.summary(),
      (e: unknown) =>
        e instanceof KubeApiError &&
        e.code === "kube-timeout" &&
        /no response within 100ms \(GET .*, 2 attempts\)$/.test(e.message) &&
        /--request-timeout/.test(e.hint ?? ""),
    );
    // 100 (the first timeout) + 10 + 100 fits in 250; 210 + 20 + 100 would not.
    assert.deepEqual(h.sleeps, [10]);
    assert.equal(h.server.requestsTo("GET", SUMMARY_PATH).length, 2);
    assert.deepEqual(
      notices.map((n) => n.problem),
      ["ETIMEDOUT: no response within 100ms"],
    );
  });

  test("a request timeout of 0 sets no limit", async () => {
    const patient = await h.connect({ requestTimeoutMs: 0 });
    h.server.fail({ path: SUMMARY_PATH, times: 1, response: { kind: "hang" } });
    const controller = new AbortController();
    const read = patient.summary(controller.signal);
    // Well past any timer a 0 could have set by mistake (setTimeout(0) fires at once).
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(h.sleeps.length, 0, "no attempt ended");
    controller.abort();
    await assert.rejects(read);
  });
});

describe("aborting a read", () => {
  test("an aborted signal stops a hanging request and the retries", async () => {
    const h = await startHarness();
    try {
      h.server.fail({ path: SUMMARY_PATH, response: { kind: "hang" } });
      const controller = new AbortController();
      const read = h.node.summary(controller.signal);
      while (h.server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
      await assert.rejects(read, (e: unknown) => e instanceof Error && e.name === "AbortError");
      assert.equal(h.server.requests.length, 1);
      assert.deepEqual(h.sleeps, []);
      h.server.clearRequests();
      await assert.rejects(
        h.node.summary(controller.signal),
        (e: unknown) => e instanceof Error && e.name === "AbortError",
      );
      assert.equal(h.server.requests.length, 0);
    } finally {
      await h.close();
    }
  });
});

describe("final answers are not retried", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());
  beforeEach(() => {
    h.server.clearFailures();
    h.server.clearRequests();
    h.sleeps.length = 0;
  });

  test("404 on a read → kube-not-found naming the object", async () => {
    const wrongNode = await h.connect({ nodeName: "no-such-node" });
    await assert.rejects(wrongNode.node(), (e: unknown) => {
      assert.ok(e instanceof KubeApiError);
      assert.equal(e.code, "kube-not-found");
      assert.equal(
        e.message,
        '404 Not Found from GET /api/v1/nodes/no-such-node: nodes "no-such-node" not found',
      );
      assert.equal(e.transient, false);
      return true;
    });
    assert.equal(h.server.requests.length, 1);
  });

  test("422 on a write → refused with the server's message", async () => {
    const pod = freshPod(h, "invalid");
    h.server.fail({
      method: "PATCH",
      path: /\/status$/,
      times: 1,
      response: {
        kind: "status",
        status: 422,
        message: 'Pod "invalid" is invalid: status.phase: Invalid value',
      },
    });
    const r = refused(
      await h.node.patchPodStatus(pod, { phase: "Failed", reason: "Evicted", message: "m", conditions: [] }),
    );
    assert.equal(r.status, 422);
    assert.match(
      r.message,
      /^422 Unprocessable Entity from PATCH \/api\/v1\/namespaces\/scraper\/pods\/invalid\/status: Pod "invalid" is invalid/,
    );
    assert.equal(h.server.requests.length, 1);
    assert.deepEqual(h.sleeps, []);
  });

  test("403 for everything: every call says which permission is missing and whose credentials were used", async () => {
    h.server.fail({ path: /.*/, response: { kind: "status", status: 403 } });
    const pod: PodRef = { namespace: "web", name: "api-0", uid: "u-1" };
    const identity = '(credentials: bearer token of user "fake" in context "fake")';
    const writes: [string, Promise<WriteOutcome>, string][] = [
      ["delete", h.node.deletePod(pod, 30), 'delete pods in namespace "web"'],
      ["evict", h.node.evictPod(pod, 30), 'create pods/eviction in namespace "web"'],
      [
        "patch",
        h.node.patchPodStatus(pod, { phase: "Failed", reason: "Evicted", message: "m", conditions: [] }),
        'patch pods/status in namespace "web"',
      ],
      [
        "event",
        h.node.createPodEvent(pod, { type: "Warning", reason: "Evicted", message: "m" }),
        'create events in namespace "web"',
      ],
    ];
    for (const [what, outcome, permission] of writes) {
      const r = refused(await outcome);
      assert.equal(r.status, 403, what);
      assert.ok(r.message.startsWith("403 Forbidden from "), `${what}: ${r.message}`);
      assert.ok(
        r.message.includes(`evictd needs permission to ${permission} ${identity}`),
        `${what}: ${r.message}`,
      );
      assert.ok(
        r.message.includes('User "system:serviceaccount:kube-system:evictd" cannot'),
        `${what}: the server's words are kept`,
      );
    }
    const reads: [string, Promise<unknown>, string][] = [
      ["summary", h.node.summary(), "get nodes/proxy (cluster scope)"],
      ["configz", h.node.kubeletConfig(), "get nodes/proxy (cluster scope)"],
      ["node", h.node.node(), "get nodes (cluster scope)"],
      ["list", h.node.listPods(), "list pods (cluster scope)"],
    ];
    for (const [what, promise, permission] of reads) {
      await assert.rejects(promise, (e: unknown) => {
        assert.ok(e instanceof KubeApiError, what);
        assert.equal(e.code, "kube-forbidden", what);
        assert.equal(e.status, 403);
        assert.ok(
          e.message.includes(`evictd needs permission to ${permission} ${identity}`),
          `${what}: ${e.message}`,
        );
        return true;
      });
    }
    assert.equal(h.server.requests.length, writes.length + reads.length, "no retries");
    assert.deepEqual(h.sleeps, []);
  });

  test("401: reads throw kube-unauthorized naming the request and the context; writes are refused", async () => {
    const file = `${h.dir}/stale-token`;
    await h.server.writeKubeconfig(file, "stale", "expired-token");
    const stale = await h.connect({ kubeconfig: file });
    await assert.rejects(stale.summary(), (e: unknown) => {
      assert.ok(e instanceof KubeApiError);
      assert.equal(e.code, "kube-unauthorized");
      assert.equal(
        e.message,
        `401 Unauthorized from GET ${SUMMARY_PATH}: check the credentials (bearer token of user "stale" in context "stale")`,
      );
      return true;
    });
    const r = refused(await stale.deletePod({ namespace: "scraper", name: "x", uid: "u" }, 0));
    assert.equal(r.status, 401);
    assert.match(
      r.message,
      /^401 Unauthorized from DELETE \/api\/v1\/namespaces\/scraper\/pods\/x: check the credentials/,
    );
    assert.equal(h.server.requests.length, 2);
    assert.ok(h.server.requests.every((req) => req.authorization === "Bearer expired-token"));
  });

  test("eviction blocked by a PodDisruptionBudget: retried a few times, then refused naming the budget", async () => {
    const pod = freshPod(h, "protected");
    h.server.blockEvictions({ name: "web-pdb", desiredHealthy: 2, currentHealthy: 2 });
    try {
      const r = refused(await h.node.evictPod(pod, 30));
      assert.equal(r.status, 429);
      assert.equal(
        r.message,
        "blocked by a PodDisruptionBudget: Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web-pdb needs 2 healthy pods and has 2 currently (3 attempts)",
      );
      assert.equal(
        h.server.requestsTo("POST", "/api/v1/namespaces/scraper/pods/protected/eviction").length,
        3,
      );
      assert.deepEqual(h.sleeps, [250, 500]);
      assert.ok(h.server.pod("scraper", "protected") !== undefined);
    } finally {
      h.server.allowEvictions();
    }
  });

  test("an eviction the budget allows after a retry → done", async () => {
    const healing = await startHarness({ onSleep: () => healing.server.allowEvictions() });
    try {
      const pod = freshPod(healing, "soon-allowed");
      healing.server.blockEvictions({ name: "web-pdb", desiredHealthy: 3, currentHealthy: 3 });
      assert.deepEqual(await healing.node.evictPod(pod, 30), { kind: "done" });
      assert.equal(healing.server.requestsTo("POST").length, 2);
      assert.deepEqual(healing.sleeps, [250]);
      assert.equal(healing.server.pod("scraper", "soon-allowed"), undefined);
    } finally {
      await healing.close();
    }
  });

  test("a plain 429 on an eviction (no budget cause) gets the normal attempts", async () => {
    const pod = freshPod(h, "throttled");
    h.server.fail({
      method: "POST",
      path: /\/eviction$/,
      response: { kind: "status", status: 429, headers: { "Retry-After": "1" } },
    });
    const r = refused(await h.node.evictPod(pod, 30));
    assert.equal(r.status, 429);
    assert.match(
      r.message,
      /^429 Too Many Requests from POST .*: Too many requests, please try again later\. \(after 5 attempts\)$/,
    );
    assert.deepEqual(h.sleeps, [1000, 1000, 1000, 1000]);
  });
});

describe("an unreachable API server", () => {
  test("reads throw kube-unreachable with the server URL and the socket error; writes are refused", async () => {
    const h = await startHarness();
    const url = h.server.url;
    await h.server.close();
    await assert.rejects(h.node.summary(), (e: unknown) => {
      assert.ok(e instanceof KubeApiError);
      assert.equal(e.code, "kube-unreachable");
      assert.equal(e.reason, "ECONNREFUSED");
      assert.equal(e.status, undefined);
      assert.equal(e.transient, true);
      assert.ok(e.message.startsWith(`cannot reach the API server at ${url}: `), e.message);
      assert.ok(e.message.includes("ECONNREFUSED"), e.message);
      assert.ok(e.message.endsWith(`(GET ${SUMMARY_PATH}, 5 attempts)`), e.message);
      return true;
    });
    assert.deepEqual(h.sleeps, [250, 500, 1000, 2000]);
    const outcome = await h.node.evictPod({ namespace: "scraper", name: "x", uid: "u" }, 30);
    const r = refused(outcome);
    assert.equal(r.status, undefined);
    assert.match(r.message, /^cannot reach the API server at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
    await h.close().catch(() => undefined);
  });
});
