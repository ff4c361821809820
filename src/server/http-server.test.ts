// The HTTP server on a real socket: 127.0.0.1, port 0, every path fetched, then a clean close.
import assert from "node:assert/strict";
import { test } from "node:test";
import { AdapterError } from "../errors.js";
import type { DaemonSnapshot } from "../app/node-view/snapshot.js";
import { parseNodeSpec } from "../core/node/node-spec.js";
import { startHttpServer } from "./http-server.js";
import { DaemonMetrics } from "./metrics.js";

function snapshot(): DaemonSnapshot {
  const spec = parseNodeSpec({
    hostname: "h",
    raw: { capacity: { memory: "1Gi" }, stateDir: "/s", manifestDir: "/m", listen: "127.0.0.1:0" },
  });
  if (!spec.ok) assert.fail(JSON.stringify(spec.issues));
  return {
    node: spec.spec,
    startedAt: 0,
    now: 1000,
    capabilities: [],
    conditions: [],
    summary: { node: { fs: { inodes: 18446744073709551615n } }, pods: [] },
    pods: [],
    evictions: [],
    evictionCounts: {},
  };
}

// Bounded: every request gives up after 5 s, so a hung server fails the test instead of stalling it.
const fetchBounded = (url: string, init: RequestInit = {}) =>
  fetch(url, { ...init, signal: AbortSignal.timeout(5000) });

test("serves every path on 127.0.0.1:0 and closes cleanly", async () => {
  const metrics = new DaemonMetrics();
  metrics.recordEviction("memory.available");
  let served = 0;
  const s = snapshot();
  const server = await startHttpServer({
    listen: s.node.listen,
    snapshot: () => {
      served++;
      return s;
    },
    metrics,
  });
  try {
    assert.equal(server.host, "127.0.0.1");
    assert.ok(server.port > 0);
    assert.equal(server.url, `http://127.0.0.1:${server.port}`);

    const cases: { path: string; status: number; type: string; has: string }[] = [
      { path: "/healthz", status: 200, type: "text/plain; charset=utf-8", has: "ok" },
      {
        path: "/metrics",
        status: 200,
        type: "text/plain; version=0.0.4; charset=utf-8",
        has: 'kubelet_evictions{eviction_signal="memory.available"} 1',
      },
      { path: "/status?pretty", status: 200, type: "application/json; charset=utf-8", has: '  "node": {' },
      {
        path: "/stats/summary",
        status: 200,
        type: "application/json; charset=utf-8",
        has: '"inodes":18446744073709551615',
      },
      { path: "/missing", status: 404, type: "text/plain; charset=utf-8", has: "404 page not found" },
    ];
    for (const c of cases) {
      const r = await fetchBounded(server.url + c.path);
      const body = await r.text();
      assert.equal(r.status, c.status, c.path);
      assert.equal(r.headers.get("content-type"), c.type, c.path);
      assert.equal(r.headers.get("content-length"), String(Buffer.byteLength(body)), c.path);
      assert.ok(body.includes(c.has), `${c.path}: ${body.slice(0, 200)}`);
    }
    const post = await fetchBounded(server.url + "/status", { method: "POST", body: "x" });
    await post.text();
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    // /healthz, an unknown path and a refused method take no snapshot; the node's views take one each.
    assert.equal(
      served,
      cases.filter((c) => ["/", "/metrics", "/status", "/stats/summary"].includes(c.path.split("?")[0] ?? ""))
        .length,
      "the snapshot is read once per request that shows the node",
    );
  } finally {
    await server.close();
  }
  // Closed: nothing listens there any more, and closing again is harmless.
  await assert.rejects(fetchBounded(server.url + "/healthz"));
  await server.close();
});

test("a port already in use is an AdapterError with a hint", async () => {
  const first = await startHttpServer({
    listen: { host: "127.0.0.1", port: 0 },
    snapshot,
    metrics: new DaemonMetrics(),
  });
  try {
    await assert.rejects(
      startHttpServer({
        listen: { host: "127.0.0.1", port: first.port },
        snapshot,
        metrics: new DaemonMetrics(),
      }),
      (e: unknown) => {
        assert.ok(e instanceof AdapterError);
        assert.equal(e.code, "http-listen");
        assert.match(e.message, new RegExp(`127\\.0\\.0\\.1:${first.port}`));
        assert.match(e.hint ?? "", /another process holds the port/);
        return true;
      },
    );
  } finally {
    await first.close();
  }
});

test("close waits for keep-alive clients without hanging", async () => {
  const server = await startHttpServer({
    listen: { host: "127.0.0.1", port: 0 },
    snapshot,
    metrics: new DaemonMetrics(),
    closeTimeoutMs: 2000,
  });
  const r = await fetchBounded(server.url + "/healthz", { headers: { connection: "keep-alive" } });
  assert.equal(await r.text(), "ok");
  const started = performance.now();
  await server.close();
  assert.ok(
    performance.now() - started < 1500,
    "idle keep-alive connections are closed at once, not after the timeout",
  );
});

test("a busy client is answered from one rendering per cache period, not one per request", async () => {
  const metrics = new DaemonMetrics();
  let served = 0;
  const s = snapshot();
  // The cache's clock is the test's: however slowly a busy machine delivers the 50 requests, they
  // all fall inside one period, and the period ends when the test says.
  let clock = 1000;
  const server = await startHttpServer({
    listen: s.node.listen,
    snapshot: () => {
      served++;
      return s;
    },
    metrics,
    cacheMs: 200,
    now: () => clock,
  });
  try {
    const ask = async (path: string): Promise<string> => (await fetchBounded(server.url + path)).text();
    const bodies = await Promise.all(Array.from({ length: 50 }, () => ask("/status")));
    assert.equal(served, 1, "50 concurrent /status requests, one rendering");
    assert.ok(bodies.every((b) => b === bodies[0]));
    await ask("/status?pretty");
    assert.equal(served, 2, "another URL is another rendering");
    clock += 199;
    await ask("/status");
    assert.equal(served, 2, "still within the period");
    clock += 2;
    await ask("/status");
    assert.equal(served, 3, "rendered afresh once the period is over");
  } finally {
    await server.close();
  }
});
