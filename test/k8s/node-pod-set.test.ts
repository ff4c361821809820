/**
 * The node's pod set against the fake API server, over real HTTP: a watch that ends is resumed from
 * the newest version the server told us about. On a busy cluster that is a bookmark's, not the last
 * event's: pods on other nodes move the version on while this node's watch sees nothing, and the
 * server's history is compacted behind them (etcd keeps ~5 minutes). Resuming from the last event
 * then costs a 410 and a full relist every time; client-go's reflector resumes from the bookmark.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { NodePodSet } from "../../src/app/cluster/node-pod-set.js";
import type { LoggerPort } from "../../src/app/ports.js";
import { systemClock } from "../../src/linux/system-clock.js";
import type { FakePod, RecordedRequest } from "../harness/fake-api-server/fake-api-server.js";
import { waitUntil } from "../harness/node-harness.js";
import { startHarness, type Harness } from "./cluster-node-harness.js";

const quiet: LoggerPort = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** GET /api/v1/pods without watch: a full list. */
const isList = (r: RecordedRequest): boolean =>
  r.method === "GET" && r.path === "/api/v1/pods" && r.query["watch"] === undefined;
const isWatch = (r: RecordedRequest): boolean =>
  r.method === "GET" && r.path === "/api/v1/pods" && r.query["watch"] === "1";

function podOn(h: Harness, name: string, nodeName: string): FakePod {
  const template = h.server.pod("scraper", "e2e-statefulset-0");
  assert.ok(template);
  const pod = structuredClone(template);
  pod.metadata.name = name;
  pod.metadata.uid = `uid-${name}`;
  pod.spec.nodeName = nodeName;
  return pod;
}

describe("NodePodSet: resuming a watch", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ connect: { watchTimeoutSeconds: 120 } });
  });
  after(() => h.close());

  test("a quiet node's watch resumes from the last bookmark: no 410 and no relist after the history was compacted", async () => {
    const set = new NodePodSet({ api: h.node, clock: systemClock, log: quiet });
    const stop = new AbortController();
    const running = set.run(stop.signal);
    try {
      await set.waitForSync();
      await h.server.waitForWatchers(1);
      const listed = set.version;
      // Elsewhere in the cluster, pods come and go: the version moves on, this node's watch is silent.
      for (let i = 0; i < 5; i++) h.server.addPod(podOn(h, `elsewhere-${i}`, "another-node"));
      assert.notEqual(h.server.state.resourceVersion, listed);
      h.server.sendBookmark();
      await waitUntil(
        "the bookmark's version",
        () => (set.version === h.server.state.resourceVersion ? true : undefined),
        5000,
      );
      // The server compacts its history past the list's version and ends the watch (its timeout).
      h.server.compactHistory();
      h.server.clearRequests();
      h.server.endWatches();
      await waitUntil("the resumed watch", () => (h.server.requests.some(isWatch) ? true : undefined), 5000);
      await h.server.waitForWatchers(1);
      const resumed = h.server.requests.find(isWatch);
      assert.equal(resumed?.query["resourceVersion"], h.server.state.resourceVersion);
      // And it works: a pod arriving on this node is seen.
      h.server.addPod(podOn(h, "arrives", h.server.nodeName));
      await waitUntil("the new pod", () => (set.get("uid-arrives") !== undefined ? true : undefined), 5000);
      assert.deepEqual(h.server.requests.filter(isList), [], "no relist");
    } finally {
      stop.abort();
      await running;
    }
  });
});
