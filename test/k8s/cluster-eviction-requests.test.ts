/**
 * `--eviction-request` against the fake API server, whose EvictionRequests follow
 * staging/src/k8s.io/api/lifecycle/v1alpha1 and pkg/registry/lifecycle (served only when enabled):
 * the object evictd creates and deletes, the 404 of an API server that does not serve the
 * resource, and `evictd watch --enforce --use-eviction-api --eviction-request` requesting
 * soft-threshold evictions, falling back to pods/eviction (said once) where the resource is not
 * served, and never requesting a hard-threshold eviction.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import type { PodRef } from "../../src/app/cluster/cluster-node-port.js";
import {
  isDryRun,
  startFakeApiServer,
  type FakeApiServer,
} from "../harness/fake-api-server/fake-api-server.js";
import { sleep } from "../harness/node-harness.js";
import { startHarness, type Harness } from "./cluster-node-harness.js";
import {
  firstSynchronize,
  MiB,
  refresh,
  removeWatchDirs,
  startWatch,
  until,
  type Running,
} from "./watch-harness.js";

const COLLECTION = "/apis/lifecycle.k8s.io/v1alpha1/namespaces/scraper/evictionrequests";

/** A fresh running pod with a real (UUID) uid, as the API validates the request's target. */
function freshPod(server: FakeApiServer, name: string): PodRef {
  const template = server.pod("scraper", "e2e-statefulset-0");
  assert.ok(template);
  const pod = structuredClone(template);
  pod.metadata.name = name;
  pod.metadata.uid = randomUUID();
  server.addPod(pod);
  return { namespace: "scraper", name, uid: pod.metadata.uid };
}

describe("createEvictionRequest / deleteEvictionRequest", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ server: { evictionRequests: "served", evictionRequestResponder: "none" } });
  });
  after(() => h.close());
  beforeEach(() => {
    h.server.clearFailures();
    h.server.clearRequests();
    h.server.serveEvictionRequests(true);
  });

  test("POST the lifecycle.k8s.io/v1alpha1 EvictionRequest: the pod by name and uid, evictd as requester, intent Eviction", async () => {
    const pod = freshPod(h.server, "requested");
    assert.deepEqual(await h.node.createEvictionRequest(pod), { kind: "done" });
    const [request, ...more] = h.server.requests;
    assert.equal(more.length, 0);
    assert.equal(request?.method, "POST");
    assert.equal(request.path, COLLECTION);
    assert.equal(request.contentType, "application/json");
    assert.equal(request.authorization, `Bearer ${h.server.token}`);
    assert.deepEqual(request.json, {
      apiVersion: "lifecycle.k8s.io/v1alpha1",
      kind: "EvictionRequest",
      metadata: { name: `evictd-${pod.uid}`, namespace: "scraper" },
      spec: {
        target: { pod: { name: "requested", uid: pod.uid } },
        requester: "evictd.io/node-pressure",
        intent: "Eviction",
      },
    });
    // A create sent again (its first answer lost) finds its own object: done.
    assert.deepEqual(await h.node.createEvictionRequest(pod), { kind: "done" });
    assert.equal(h.server.requests.length, 2);
    assert.equal(h.server.evictionRequests.length, 1);
    // Served: deleted by name; a second delete finds nothing.
    assert.deepEqual(await h.node.deleteEvictionRequest(pod), { kind: "done" });
    assert.equal(h.server.requests.at(-1)?.method, "DELETE");
    assert.equal(h.server.requests.at(-1)?.path, `${COLLECTION}/evictd-${pod.uid}`);
    assert.deepEqual(await h.node.deleteEvictionRequest(pod), { kind: "gone" });
    assert.equal(h.server.evictionRequests.length, 0);
  });

  test("not served (the alpha API off): not-served after one request, nothing retried", async () => {
    h.server.serveEvictionRequests(false);
    const pod = freshPod(h.server, "unserved");
    const outcome = await h.node.createEvictionRequest(pod);
    assert.equal(outcome.kind, "not-served");
    assert.match(
      outcome.kind === "not-served" ? outcome.message : "",
      /^404 from POST \/apis\/lifecycle\.k8s\.io\/v1alpha1\/namespaces\/scraper\/evictionrequests: the server could not find the requested resource$/,
    );
    assert.equal(h.server.requests.length, 1);
  });

  test("a 403 names the permission with its group", async () => {
    const pod = freshPod(h.server, "forbidden");
    h.server.fail({ method: "POST", path: COLLECTION, times: 1, response: { kind: "status", status: 403 } });
    const outcome = await h.node.createEvictionRequest(pod);
    assert.equal(outcome.kind, "refused");
    assert.match(
      outcome.kind === "refused" ? outcome.message : "",
      /cannot create resource "evictionrequests" in API group "lifecycle\.k8s\.io" in the namespace "scraper"; evictd needs permission to create evictionrequests\.lifecycle\.k8s\.io in namespace "scraper"/,
    );
  });
});

describe("evictd watch --enforce --use-eviction-api --eviction-request", () => {
  const dirs: string[] = [];
  after(async () => {
    await removeWatchDirs();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  /** Thresholds: hard memory.available 100Mi, soft 500Mi after 300ms, pods given up to 20 s. */
  const softConfig = async (): Promise<string> => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "evictd-eviction-request-"));
    dirs.push(dir);
    const file = path.join(dir, "kubelet.yaml");
    await writeFile(
      file,
      [
        "apiVersion: kubelet.config.k8s.io/v1beta1",
        "kind: KubeletConfiguration",
        "evictionHard:",
        '  memory.available: "100Mi"',
        "evictionSoft:",
        '  memory.available: "500Mi"',
        "evictionSoftGracePeriod:",
        '  memory.available: "300ms"',
        "evictionMaxPodGracePeriod: 20",
        "",
      ].join("\n"),
    );
    return file;
  };
  const start = async (served: boolean): Promise<Running> =>
    startWatch(
      "eviction-api",
      await startFakeApiServer({ evictionRequests: served ? "served" : "not-served" }),
      {
        configFile: await softConfig(),
        preflight: true,
        evictionRequests: true,
      },
    );
  const TOP = "e2e-container-creating";
  const evictionPosts = (w: Running): string[] =>
    w.server.requests
      .filter((r) => r.method === "POST" && r.path.endsWith("/eviction"))
      .filter((r) => !isDryRun(r))
      .map((r) => r.path.split("/")[6] ?? "");

  test("served: a soft-threshold eviction is an EvictionRequest (no pods/eviction from evictd); once the pod is gone, the request is deleted", async () => {
    const w = await start(true);
    const uid = w.server.pod("scraper", TOP)?.metadata.uid;
    try {
      await firstSynchronize(w);
      // Under the soft threshold in two fresh samples past its grace period, and no sample after:
      // one eviction (a fresh sample still under it would take the next pod, as it should).
      refresh(w.server, 300 * MiB);
      await sleep(400);
      refresh(w.server, 300 * MiB);
      const created = await until("the EvictionRequest", () =>
        w.server.requests.find((r) => r.method === "POST" && r.path === COLLECTION),
      );
      const target = (created.json as { spec: { target: { pod: { name: string; uid: string } } } }).spec
        .target.pod;
      assert.equal(target.name, TOP);
      assert.equal(target.uid, uid);
      // The dry run came first (the preflight), and no eviction by evictd itself.
      assert.ok(w.server.requests.some((r) => r.path === `/api/v1/namespaces/scraper/pods/${TOP}/eviction`));
      assert.deepEqual(evictionPosts(w), []);
      const event = await until("the EvictionRequested event", () =>
        w.server.events.find((e) => e.reason === "EvictionRequested"),
      );
      assert.equal((event.involvedObject as { name: string }).name, TOP);
      assert.match(
        String(event.message),
        /^The node was low on resource: memory\..* Eviction requested through an EvictionRequest\.$/,
      );
      // The fake's stand-in for the controller and the imperative evictor evicts the pod; evictd then deletes its request.
      const deleted = await until("the request's deletion", () =>
        w.server.requests.find((r) => r.method === "DELETE" && r.path.startsWith(`${COLLECTION}/`)),
      );
      assert.equal(deleted.path, `${COLLECTION}/evictd-${target.uid}`);
      assert.equal(w.server.pod("scraper", TOP), undefined);
      assert.deepEqual(w.server.evictionRequests, []);
      assert.equal(w.server.requests.filter((r) => r.method === "POST" && r.path === COLLECTION).length, 1);
      assert.ok(!w.lines.some((l) => l.msg.includes("does not serve EvictionRequests")));
    } finally {
      await w.stop();
    }
  });

  test("not served: falls back to pods/eviction and says so once, for this eviction and the next", async () => {
    const w = await start(false);
    const pressure = setInterval(() => refresh(w.server, 300 * MiB), 100);
    try {
      await firstSynchronize(w);
      await until("two evictions through pods/eviction", () =>
        evictionPosts(w).length >= 2 ? true : undefined,
      );
      assert.deepEqual(evictionPosts(w).slice(0, 2), [TOP, "e2e-kube-state-metrics-75b885dc9-97mtr"]);
      assert.equal(
        w.server.requests.filter((r) => r.path === COLLECTION).length,
        1,
        "asked once, then not again",
      );
      const said = w.lines.filter((l) => l.msg.includes("does not serve EvictionRequests"));
      assert.equal(said.length, 1);
      assert.equal(said[0]?.level, "warn");
      assert.match(said[0]?.msg ?? "", /soft-threshold evictions go through pods\/eviction from now on$/);
    } finally {
      clearInterval(pressure);
      await w.stop();
    }
  });

  test("a hard-threshold eviction never uses an EvictionRequest, even where served", async () => {
    const w = await start(true);
    try {
      await firstSynchronize(w);
      refresh(w.server, 50 * MiB);
      await until("an eviction through pods/eviction", () =>
        evictionPosts(w).length > 0 ? true : undefined,
      );
      assert.deepEqual(evictionPosts(w), [TOP]);
      const evicted = w.server.requests.find((r) => r.path.endsWith(`${TOP}/eviction`) && !isDryRun(r));
      assert.equal(
        (evicted?.json as { deleteOptions: { gracePeriodSeconds: number } }).deleteOptions.gracePeriodSeconds,
        1,
      );
      await sleep(300);
      assert.ok(!w.server.requests.some((r) => r.path.startsWith(COLLECTION)));
    } finally {
      await w.stop();
    }
  });
});
