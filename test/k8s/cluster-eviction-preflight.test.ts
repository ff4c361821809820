/**
 * The eviction preflight against the fake API server, whose eviction subresource and budgets follow
 * pkg/registry/core/pod/storage/eviction.go and pkg/controller/disruption/disruption.go: the dry run
 * evictd sends (a policy/v1 Eviction with `deleteOptions.dryRun: ["All"]`), what each answer means
 * (allowed, a budget that refuses, two budgets, no verdict), the eviction sent once for a budget's
 * verdict, and `evictd watch --enforce` skipping a pod whose PodDisruptionBudget refuses its
 * eviction (learnt from the eviction's refusal, or from a dry run) for the next pod in the
 * kubelet's ranking, reported by a log line, a Warning event and a metric, the refused pod left as
 * it was, and the recorded trace replaying to the same decisions.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { after, before, beforeEach, describe, test } from "node:test";
import type { PodRef } from "../../src/app/cluster/cluster-node-port.js";
import {
  startFakeApiServer,
  type FakeApiServer,
  type FakeBudgetSpec,
} from "../harness/fake-api-server/fake-api-server.js";
import { EVICTD_BIN, REPO_ROOT, sleep } from "../harness/node-harness.js";
import { startHarness, type Harness } from "./cluster-node-harness.js";
import {
  decisions,
  firstSynchronize,
  MiB,
  NORMAL,
  refresh,
  removeWatchDirs,
  startWatch,
  until,
} from "./watch-harness.js";

after(removeWatchDirs);

/** A fresh Ready pod labelled app=web in namespace scraper. */
function webPod(server: FakeApiServer, name: string): PodRef {
  const template = server.pod("scraper", "e2e-statefulset-0");
  assert.ok(template);
  const pod = structuredClone(template);
  pod.metadata.name = name;
  pod.metadata.uid = `uid-${name}`;
  pod.metadata.labels = { app: "web" };
  server.addPod(pod);
  return { namespace: "scraper", name, uid: `uid-${name}` };
}

/**
 * Runs `body` while PodDisruptionBudgets of these names and limits guard the app=web pods of
 * namespace scraper; then, even when `body` fails, the budgets go, and so do the pods named in
 * `removing`, so that the next test's budgets count only its own pods.
 */
async function underWebBudgets(
  server: FakeApiServer,
  budgets: readonly Pick<FakeBudgetSpec, "name" | "minAvailable" | "maxUnavailable">[],
  body: () => Promise<void>,
  removing: readonly string[] = [],
): Promise<void> {
  for (const budget of budgets)
    server.addPodDisruptionBudget({ ...budget, namespace: "scraper", matchLabels: { app: "web" } });
  try {
    await body();
  } finally {
    for (const budget of budgets) server.removePodDisruptionBudget("scraper", budget.name);
    for (const name of removing) server.removePod("scraper", name);
  }
}

describe("preflightEviction: the dry run and its answers", () => {
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

  test("POST pods/NAME/eviction with dryRun [All] in the DeleteOptions; allowed, and the pod untouched", async () => {
    const pod = webPod(h.server, "web-free");
    const before = h.server.pod(pod.namespace, pod.name);
    assert.deepEqual(await h.node.preflightEviction(pod, 20), { kind: "allowed" });
    const [request, ...more] = h.server.requests;
    assert.equal(more.length, 0);
    assert.equal(request?.method, "POST");
    assert.equal(request.path, "/api/v1/namespaces/scraper/pods/web-free/eviction");
    assert.equal(request.contentType, "application/json");
    assert.deepEqual(request.json, {
      apiVersion: "policy/v1",
      kind: "Eviction",
      metadata: { name: "web-free", namespace: "scraper" },
      deleteOptions: { gracePeriodSeconds: 20, preconditions: { uid: "uid-web-free" }, dryRun: ["All"] },
    });
    assert.deepEqual(h.server.pod(pod.namespace, pod.name), before, "not deleted, no DisruptionTarget");
  });

  test("a budget that allows no disruption: blocked with its words after one attempt, and its status unchanged", async () => {
    const pod = webPod(h.server, "web-guarded");
    await underWebBudgets(
      h.server,
      [{ name: "web-pdb", maxUnavailable: 0 }],
      async () => {
        const status = h.server.podDisruptionBudgetStatus("scraper", "web-pdb");
        assert.deepEqual(await h.node.preflightEviction(pod, 20), {
          kind: "blocked",
          message:
            "Cannot evict pod as it would violate the pod's disruption budget. The disruption budget web-pdb needs 2 healthy pods and has 2 currently",
        });
        assert.equal(h.server.requests.length, 1, "a dry run's refusal is its answer: no retry");
        assert.deepEqual(h.sleeps, []);
        assert.deepEqual(h.server.podDisruptionBudgetStatus("scraper", "web-pdb"), status);
        assert.ok(h.server.pod("scraper", "web-guarded"));
      },
      ["web-guarded", "web-free"],
    );
  });

  test("evictPodOrBlocked: the real eviction sent once; a budget's 429 is blocked with its words, the pod and budget untouched; allowed, it is evicted", async () => {
    const pod = webPod(h.server, "web-once");
    await underWebBudgets(h.server, [{ name: "web-pdb", maxUnavailable: 0 }], async () => {
      const status = h.server.podDisruptionBudgetStatus("scraper", "web-pdb");
      const outcome = await h.node.evictPodOrBlocked(pod, 20);
      assert.equal(outcome.kind, "blocked");
      assert.match(
        outcome.kind === "blocked" ? outcome.message : "",
        /^Cannot evict pod as it would violate the pod's disruption budget\. The disruption budget web-pdb/,
      );
      assert.equal(h.server.requests.length, 1, "not retried");
      assert.deepEqual(h.sleeps, []);
      assert.equal(
        (h.server.requests[0]?.json as { deleteOptions: { dryRun?: unknown } }).deleteOptions.dryRun,
        undefined,
        "the real eviction, not a dry run",
      );
      assert.deepEqual(h.server.podDisruptionBudgetStatus("scraper", "web-pdb"), status);
      const left = h.server.pod("scraper", "web-once");
      assert.ok(left !== undefined && left.metadata.deletionTimestamp === undefined);
      assert.ok(!(left.status?.conditions ?? []).some((c) => c.type === "DisruptionTarget"));
    });
    assert.deepEqual(await h.node.evictPodOrBlocked(pod, 20), { kind: "done" });
    assert.equal(h.server.pod("scraper", "web-once"), undefined);
  });

  test("two budgets: blocked by the 500's words, neither the dry run nor the eviction retried", async () => {
    const pod = webPod(h.server, "web-twice");
    await underWebBudgets(
      h.server,
      [
        { name: "a", minAvailable: 0 },
        { name: "b", minAvailable: 0 },
      ],
      async () => {
        const message =
          "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.";
        assert.deepEqual(await h.node.preflightEviction(pod, 20), { kind: "blocked", message });
        assert.deepEqual(await h.node.evictPod(pod, 20), {
          kind: "refused",
          status: 500,
          message: `blocked by PodDisruptionBudgets: ${message}`,
        });
        assert.equal(h.server.requests.length, 2);
        assert.deepEqual(h.sleeps, []);
      },
      ["web-twice"],
    );
  });

  test("no verdict: a 403 names the permission the dry run needs; a missing pod is gone", async () => {
    const pod = webPod(h.server, "web-forbidden");
    h.server.fail({
      method: "POST",
      path: /\/eviction$/,
      times: 1,
      response: { kind: "status", status: 403 },
    });
    const forbidden = await h.node.preflightEviction(pod, 20);
    assert.equal(forbidden.kind, "unknown");
    assert.match(
      forbidden.kind === "unknown" ? forbidden.message : "",
      /evictd needs permission to create pods\/eviction in namespace "scraper"/,
    );
    assert.deepEqual(
      await h.node.preflightEviction({ namespace: "scraper", name: "never-was", uid: "u" }, 20),
      {
        kind: "gone",
      },
    );
    h.server.removePod("scraper", "web-forbidden");
  });
});

describe("evictd watch --enforce with the preflight", () => {
  /**
   * The node's top-ranked pod under memory pressure is e2e-container-creating (no stats yet, not
   * Ready); its budget wants one healthy pod of app=creating and has none, so no disruption is
   * allowed. The next pod in the kubelet's order is e2e-kube-state-metrics.
   */
  const guardedServer = async (): Promise<FakeApiServer> => {
    const server = await startFakeApiServer();
    server.addPodDisruptionBudget({
      name: "creating-pdb",
      namespace: "scraper",
      matchLabels: { app: "creating" },
      minAvailable: 1,
    });
    return server;
  };
  const TOP = "/api/v1/namespaces/scraper/pods/e2e-container-creating";
  const NEXT = "/api/v1/namespaces/scraper/pods/e2e-kube-state-metrics-75b885dc9-97mtr";

  for (const dryRunFirst of [false, true])
    test(`Eviction API${dryRunFirst ? " with --eviction-dry-run" : ""}: the protected top pod is reported and the next pod is evicted; ${dryRunFirst ? "the dry run" : "the refused eviction"} deleted nothing; the trace replays to the same decisions`, async () => {
      const w = await startWatch("eviction-api", await guardedServer(), {
        preflight: true,
        ...(dryRunFirst ? { dryRunFirst: true } : {}),
      });
      try {
        await firstSynchronize(w);
        refresh(w.server, 100 * MiB);
        const evicted = await until("the real eviction of the next pod", () =>
          w.server.requests.find(
            (r) =>
              r.path === `${NEXT}/eviction` &&
              (r.json as { deleteOptions: { dryRun?: unknown } }).deleteOptions.dryRun === undefined,
          ),
        );
        const evictions = w.server.requests.filter((r) => r.path.endsWith("/eviction"));
        // The order. With the dry run: the top pod's (refused), the next pod's (allowed), its
        // eviction. Without: the top pod's eviction (refused: its answer), the next pod's eviction.
        assert.deepEqual(
          evictions.map((r) => [
            r.path,
            (r.json as { deleteOptions: { dryRun?: string[] } }).deleteOptions.dryRun,
          ]),
          dryRunFirst
            ? [
                [`${TOP}/eviction`, ["All"]],
                [`${NEXT}/eviction`, ["All"]],
                [`${NEXT}/eviction`, undefined],
              ]
            : [
                [`${TOP}/eviction`, undefined],
                [`${NEXT}/eviction`, undefined],
              ],
        );
        assert.equal(evictions.at(-1), evicted);
        assert.equal(
          evictions.filter((r) => r.path === `${TOP}/eviction`).length,
          1,
          "a budget's refusal is not retried",
        );
        // The refused pod is as it was: no deletion, no DisruptionTarget, nothing spent of its budget.
        const top = w.server.pod("scraper", "e2e-container-creating");
        assert.ok(top !== undefined && top.metadata.deletionTimestamp === undefined);
        assert.ok(!(top.status?.conditions ?? []).some((c) => c.type === "DisruptionTarget"));
        assert.deepEqual(w.server.podDisruptionBudgetStatus("scraper", "creating-pdb")?.disruptedPods, {});
        assert.equal(w.server.pod("scraper", "e2e-kube-state-metrics-75b885dc9-97mtr"), undefined);
        // Reported: a warning naming the budget, a Warning event on the pod, the counter.
        const line = w.lines.find((l) =>
          l.msg.startsWith("evicting scraper/e2e-container-creating would violate"),
        );
        assert.ok(line !== undefined && line.level === "warn");
        assert.match(line.msg, /The disruption budget creating-pdb needs 1 healthy pods and has 0 currently/);
        assert.match(line.msg, /the next pod in the ranking is considered$/);
        const blocked = w.server.events.find((e) => e.reason === "EvictionBlocked");
        assert.deepEqual(
          (blocked?.involvedObject as { name: string } | undefined)?.name,
          "e2e-container-creating",
        );
        assert.equal(blocked?.type, "Warning");
        assert.match(
          String(blocked?.message),
          /^The node was low on resource: memory\. .*Not evicted: Cannot evict pod as it would violate the pod's disruption budget\. The disruption budget creating-pdb/,
        );
        const url = await w.url;
        assert.match(
          await (await fetch(`${url}/metrics`)).text(),
          /^evictd_eviction_preflight_refusals_total 1$/m,
        );
        const status = (await (await fetch(`${url}/status`)).json()) as { capabilities: string[] };
        assert.ok(
          status.capabilities.some((c) =>
            c.startsWith(
              dryRunFirst
                ? "each eviction is first sent as a dry run"
                : "a pod whose eviction its PodDisruptionBudget refuses",
            ),
          ),
        );
        // Pressure relieved: nothing more.
        refresh(w.server, NORMAL);
        await sleep(400);
      } finally {
        await w.stop();
      }
      // The step that skipped the pod recorded the pods without it: the replay decides as the loop did.
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [EVICTD_BIN, "replay", w.trace, "--output", "jsonl"],
        { cwd: REPO_ROOT, maxBuffer: 64 * MiB },
      );
      const strip = (r: Record<string, unknown>): Record<string, unknown> => {
        const { step: _step, wake: _wake, reactionMs: _r, sinceBelowMs: _s, timings: _t, ...rest } = r;
        return rest;
      };
      const replayed = stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((r) => r["type"] === "step")
        .map(strip);
      const live = (await decisions(w.decisionLog)).map(strip);
      assert.deepEqual(replayed, live);
      const evictedLive = live.flatMap((r) => (r["evictions"] as { pod: string }[] | undefined) ?? []);
      assert.deepEqual(
        evictedLive.map((e) => e.pod),
        ["scraper/e2e-kube-state-metrics-75b885dc9-97mtr"],
      );
    });

  test("deletion with --eviction-preflight skips the protected pod too; without it, the kubelet's way deletes it", async () => {
    const asked = await startWatch("delete", await guardedServer(), { preflight: true });
    try {
      await firstSynchronize(asked);
      refresh(asked.server, 100 * MiB);
      const deleted = await until("a DELETE", () => asked.server.requests.find((r) => r.method === "DELETE"));
      assert.equal(deleted.path, NEXT);
      assert.ok(
        asked.server.requests.some((r) => r.path === `${TOP}/eviction`),
        "the top pod was asked about",
      );
      assert.ok(asked.server.pod("scraper", "e2e-container-creating"));
    } finally {
      await asked.stop();
    }
    const kubelet = await startWatch("delete", await guardedServer(), { preflight: false });
    try {
      await firstSynchronize(kubelet);
      refresh(kubelet.server, 100 * MiB);
      const deleted = await until("a DELETE", () =>
        kubelet.server.requests.find((r) => r.method === "DELETE"),
      );
      assert.equal(deleted.path, TOP, "the kubelet consults no budget");
      assert.ok(!kubelet.server.requests.some((r) => r.path.endsWith("/eviction")));
    } finally {
      await kubelet.stop();
    }
  });
});
