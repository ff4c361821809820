/**
 * Connections to the API server: short requests share a kept connection, and a watch (which holds
 * its HTTP/1.1 connection for as long as it runs) gets one of its own, so the first eviction after
 * the watch has started goes out on the kept connection, not on a new one with a TLS handshake on
 * the way from the crossing to the call.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startHarness, type Harness } from "./cluster-node-harness.js";

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(() => h.close());

test("a running watch leaves the kept connection to the requests: the eviction after it opens none", async () => {
  await h.node.summary();
  const { resourceVersion } = await h.node.listPods();
  const stop = new AbortController();
  const watching = h.node.watchPods(resourceVersion, () => undefined, stop.signal).catch(() => undefined);
  try {
    // The watch is under way once the server has seen it.
    for (let i = 0; i < 200 && !h.server.requests.some((r) => r.query.watch !== undefined); i++)
      await new Promise((r) => setTimeout(r, 10));
    const template = h.server.pod("scraper", "e2e-statefulset-0");
    assert.ok(template !== undefined);
    const pod = structuredClone(template);
    pod.metadata.name = "conn-0";
    pod.metadata.uid = "uid-conn-0";
    h.server.addPod(pod);
    assert.deepEqual(
      await h.node.evictPodOrBlocked({ namespace: "scraper", name: "conn-0", uid: "uid-conn-0" }, 10),
      {
        kind: "done",
      },
    );
    const seen = h.server.requests.map((r) => [
      r.method,
      r.query.watch !== undefined ? "watch" : r.path,
      r.newConnection,
    ]);
    assert.deepEqual(
      seen
        .filter(([, , fresh]) => fresh === true)
        .map(([method, what]) => `${String(method)} ${String(what)}`),
      [`GET ${h.server.requests[0]?.path ?? ""}`, "GET watch"],
      "one connection for the requests (opened by the first), one for the watch",
    );
    const eviction = h.server.requests.find((r) => r.path.endsWith("/conn-0/eviction"));
    assert.equal(eviction?.newConnection, false);
  } finally {
    stop.abort();
    await watching;
  }
});
