// The pod watch against the fake API server: the request, event delivery (bookmarks included,
// other nodes' pods filtered by the server), the end of a watch, 410 in both forms, abort, a broken
// stream and retries of the connect.
import { after, before, beforeEach, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { PodEvent } from "../../src/app/cluster/cluster-node-port.js";
import { WatchExpiredError } from "../../src/app/cluster/cluster-node-port.js";
import { KubeApiError } from "../../src/kubernetes/kube-api-error.js";
import type { FakePod } from "../harness/fake-api-server/fake-api-server.js";
import { startHarness, type Harness } from "./cluster-node-harness.js";

const NODE = "datagen-1-35";

function meta(event: PodEvent): { name: unknown; rv: unknown; deletion: unknown } {
  const m = (event.pod as { metadata: Record<string, unknown> }).metadata;
  return { name: m.name, rv: m.resourceVersion, deletion: m.deletionTimestamp };
}

function newPod(h: Harness, name: string, nodeName: string): FakePod {
  const template = h.server.pod("scraper", "e2e-statefulset-0");
  assert.ok(template);
  const pod = structuredClone(template);
  pod.metadata.name = name;
  pod.metadata.uid = `uid-${name}`;
  pod.spec.nodeName = nodeName;
  return pod;
}

/** Starts a watch collecting events; `done` settles with the watch. */
function watch(
  h: Harness,
  rv: string,
  signal = new AbortController().signal,
): { events: PodEvent[]; done: Promise<void> } {
  const events: PodEvent[] = [];
  return { events, done: h.node.watchPods(rv, (e) => events.push(e), signal) };
}

describe("watchPods", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ connect: { watchTimeoutSeconds: 120 } });
  });
  after(() => h.close());
  beforeEach(() => {
    h.server.clearFailures();
    h.server.clearRequests();
    h.sleeps.length = 0;
  });

  test("sends GET /api/v1/pods?watch=1 with resourceVersion, bookmarks, the node's fieldSelector and timeoutSeconds", async () => {
    const { resourceVersion } = await h.node.listPods();
    h.server.clearRequests();
    const w = watch(h, resourceVersion);
    await h.server.waitForWatchers(1);
    h.server.endWatches();
    await w.done;
    const request = h.server.requests[0];
    assert.equal(request?.method, "GET");
    assert.equal(request.path, "/api/v1/pods");
    assert.deepEqual(request.query, {
      fieldSelector: `spec.nodeName=${NODE}`,
      watch: "1",
      resourceVersion,
      allowWatchBookmarks: "true",
      timeoutSeconds: "120",
    });
    assert.equal(request.authorization, `Bearer ${h.server.token}`);
    assert.deepEqual(w.events, []);
  });

  test("delivers ADDED, MODIFIED, DELETED and BOOKMARK in order, and resolves when the server ends the watch", async () => {
    const { resourceVersion } = await h.node.listPods();
    const w = watch(h, resourceVersion);
    await h.server.waitForWatchers(1);
    h.server.addPod(newPod(h, "arrives", NODE));
    h.server.sendBookmark();
    h.server.addPod(newPod(h, "on-another-node", "another-node"));
    h.server.modifyPod("scraper", "arrives", (p) => {
      p.metadata.labels = { changed: "yes" };
    });
    h.server.sendBookmark();
    h.server.removePod("scraper", "arrives");
    h.server.endWatches();
    await w.done;

    assert.deepEqual(
      w.events.map((e) => [e.type, meta(e).name]),
      [
        ["ADDED", "arrives"],
        ["BOOKMARK", undefined],
        ["MODIFIED", "arrives"],
        ["BOOKMARK", undefined],
        ["DELETED", "arrives"],
      ],
    );
    const rvs = w.events.map((e) => Number(meta(e).rv));
    assert.ok(
      rvs.every((rv, i) => i === 0 || rv >= (rvs[i - 1] ?? 0)),
      `resourceVersions never go back: ${rvs.join(",")}`,
    );
    // The second bookmark carries the version the other node's pod moved the server to.
    assert.ok((rvs[3] ?? 0) > (rvs[1] ?? 0), `bookmarks follow the server's version: ${rvs.join(",")}`);
    const modified = w.events[2]?.pod as { metadata: { labels: unknown } };
    assert.deepEqual(modified.metadata.labels, { changed: "yes" });
  });

  test("replays the changes after the given resourceVersion", async () => {
    const { resourceVersion } = await h.node.listPods();
    h.server.addPod(newPod(h, "while-away", NODE));
    const w = watch(h, resourceVersion);
    await h.server.waitForWatchers(1);
    h.server.endWatches();
    await w.done;
    assert.deepEqual(
      w.events.map((e) => [e.type, meta(e).name]),
      [["ADDED", "while-away"]],
    );
    h.server.removePod("scraper", "while-away");
  });

  test("a resourceVersion older than the server's history: ERROR 410 event → WatchExpiredError", async () => {
    const { resourceVersion } = await h.node.listPods();
    h.server.addPod(newPod(h, "after-compaction", NODE));
    h.server.compactHistory();
    const w = watch(h, resourceVersion);
    await assert.rejects(
      w.done,
      (e: unknown) => e instanceof WatchExpiredError && /too old resource version/.test(e.message),
    );
    assert.deepEqual(w.events, []);
    h.server.removePod("scraper", "after-compaction");
  });

  test("the same as an HTTP 410 → WatchExpiredError, not retried", async () => {
    const { resourceVersion } = await h.node.listPods();
    h.server.addPod(newPod(h, "http-410", NODE));
    h.server.compactHistory();
    h.server.expiredWatch = "http";
    h.server.clearRequests();
    try {
      await assert.rejects(watch(h, resourceVersion).done, WatchExpiredError);
      assert.equal(h.server.requests.length, 1);
      assert.deepEqual(h.sleeps, []);
    } finally {
      h.server.expiredWatch = "event";
      h.server.removePod("scraper", "http-410");
    }
  });

  test("an ERROR 410 in the middle of a watch → WatchExpiredError after the events before it", async () => {
    const { resourceVersion } = await h.node.listPods();
    const w = watch(h, resourceVersion);
    await h.server.waitForWatchers(1);
    h.server.addPod(newPod(h, "before-expiry", NODE));
    h.server.expireWatches();
    await assert.rejects(w.done, WatchExpiredError);
    assert.deepEqual(
      w.events.map((e) => meta(e).name),
      ["before-expiry"],
    );
    h.server.removePod("scraper", "before-expiry");
  });

  test("abort resolves the watch and closes the connection", async () => {
    const { resourceVersion } = await h.node.listPods();
    const controller = new AbortController();
    const w = watch(h, resourceVersion, controller.signal);
    await h.server.waitForWatchers(1);
    controller.abort();
    await w.done;
    for (let i = 0; i < 50 && h.server.state.watchCount > 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(h.server.state.watchCount, 0);
    // Already aborted: no request at all.
    h.server.clearRequests();
    await h.node.watchPods(resourceVersion, () => assert.fail("no events"), controller.signal);
    assert.equal(h.server.requests.length, 0);
  });

  test("a connection that breaks mid-stream rejects with a transient KubeApiError", async () => {
    const { resourceVersion } = await h.node.listPods();
    const w = watch(h, resourceVersion);
    await h.server.waitForWatchers(1);
    h.server.dropConnections();
    await assert.rejects(
      w.done,
      (e: unknown) => e instanceof KubeApiError && e.code === "kube-watch-broken" && e.transient,
    );
  });

  test("the connect is retried on 503 and on a reset connection", async () => {
    const { resourceVersion } = await h.node.listPods();
    h.server.fail({
      method: "GET",
      path: "/api/v1/pods",
      query: { watch: "1" },
      times: 1,
      response: { kind: "status", status: 503 },
    });
    h.server.fail({
      method: "GET",
      path: "/api/v1/pods",
      query: { watch: "1" },
      times: 1,
      response: { kind: "close" },
    });
    h.server.clearRequests();
    const w = watch(h, resourceVersion);
    await h.server.waitForWatchers(1);
    h.server.endWatches();
    await w.done;
    assert.equal(h.server.requestsTo("GET", "/api/v1/pods").length, 3);
    assert.deepEqual(h.sleeps, [250, 500]);
  });

  test("a watch the server refuses (403) rejects with the watch permission named", async () => {
    h.server.fail({
      path: "/api/v1/pods",
      query: { watch: "1" },
      times: 1,
      response: { kind: "status", status: 403 },
    });
    await assert.rejects(
      watch(h, "1").done,
      (e: unknown) =>
        e instanceof KubeApiError &&
        e.code === "kube-forbidden" &&
        /needs permission to watch pods \(cluster scope\)/.test(e.message),
    );
  });

  test("an exception from onEvent ends the watch with that exception", async () => {
    const { resourceVersion } = await h.node.listPods();
    const done = h.node.watchPods(
      resourceVersion,
      () => {
        throw new Error("handler failed");
      },
      new AbortController().signal,
    );
    await h.server.waitForWatchers(1);
    h.server.addPod(newPod(h, "trigger", NODE));
    await assert.rejects(done, /handler failed/);
    h.server.removePod("scraper", "trigger");
  });
});
