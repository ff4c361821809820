/**
 * `evictd run` scraped by a real Prometheus (Debian's, started by the test on loopback) while a pod
 * leaks its way to an eviction: every metric docs/monitoring.md lists is ingested, the
 * kubernetes-mixin's KubeNodeEviction expression (its exact shape, on evictd's job) returns the node
 * and the signal, and every query of deploy/monitoring's dashboard returns data.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  E2E_SKIP,
  evicted,
  IDLE,
  leakMemory,
  podManifest,
  REPO_ROOT,
  scaled,
  TestNode,
  waitUntil,
  type Daemon,
} from "../harness/node-harness.js";
import { prometheusSkip, startPrometheus, type PrometheusServer } from "../support/prometheus-server.js";
import { dashboardQueries } from "../support/dashboard-queries.js";

interface Sample {
  readonly metric: Record<string, string>;
  readonly value: [number, string];
}

async function query(server: PrometheusServer, expr: string): Promise<Sample[]> {
  const res = await fetch(`${server.url}/api/v1/query`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ query: expr }),
  });
  const body = (await res.json()) as { status: string; error?: string; data?: { result: Sample[] } };
  assert.equal(body.status, "success", `${expr}: ${body.error}`);
  return body.data?.result ?? [];
}

/** The metric names docs/monitoring.md's table lists. */
function documentedMetrics(): string[] {
  const doc = readFileSync(join(REPO_ROOT, "docs", "monitoring.md"), "utf8");
  return [...doc.matchAll(/^\|\s*`([a-z_:]+)`\s*\|\s*(counter|gauge|histogram)\s*\|/gm)].map(
    (m) => `${m[1]} ${m[2]}`,
  );
}

const skip = E2E_SKIP || prometheusSkip;

describe("evictd run scraped by Prometheus", { skip }, () => {
  let node: TestNode;
  let daemon: Daemon;
  let prometheus: PrometheusServer;
  let nodeName: string;

  before(
    async () => {
      node = await TestNode.create("prom");
      await node.writeNodeFile({
        capacity: { memory: "512Mi", pids: 1024 },
        config: {
          evictionHard: { "memory.available": "150Mi", "nodefs.available": "1%", "nodefs.inodesFree": "1%" },
          evictionSoft: { "memory.available": "200Mi" },
          evictionSoftGracePeriod: { "memory.available": "1m" },
        },
      });
      await node.addPod(podManifest({ name: "idler", containers: [{ name: "idle", command: IDLE }] }));
      // A container the kernel OOM-kills at its own limit: evictd_oom_kills_total gets its series.
      await node.addPod(
        podManifest({
          name: "hog",
          restartPolicy: "Never",
          containers: [
            {
              name: "grow",
              command: [process.execPath, "-e", "const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1));"],
              limits: { memory: "48Mi" },
            },
          ],
        }),
      );
      daemon = await node.start();
      const served = /^kubelet_node_name\{node="([^"]+)"\} 1$/m.exec(await daemon.metrics());
      assert.ok(served?.[1] !== undefined, "kubelet_node_name is served");
      nodeName = served[1];
      prometheus = await startPrometheus({
        scrapeConfigs: [
          {
            job_name: "evictd",
            scrape_interval: "1s",
            static_configs: [{ targets: [new URL(daemon.url).host] }],
          },
        ],
      });
      // A scrape before the eviction: the counter's 0 is what rate() measures the eviction from.
      await waitUntil(
        "Prometheus to scrape kubelet_evictions 0",
        async () =>
          (await query(prometheus, 'kubelet_evictions{job="evictd",eviction_signal="memory.available"} == 0'))
            .length === 1 || undefined,
        30_000,
      );
      await node.addPod(
        podManifest({
          name: "leaker",
          containers: [{ name: "leak", command: leakMemory(8, 100), requests: { memory: "32Mi" } }],
        }),
      );
      await daemon.waitForStatus("default/leaker evicted", evicted("default/leaker"), 30_000);
      // A few scrapes after it, so that rates and the dashboard's windows hold it.
      await waitUntil(
        "Prometheus to scrape the eviction",
        async () =>
          (await query(prometheus, 'kubelet_evictions{job="evictd",eviction_signal="memory.available"} == 1'))
            .length === 1 || undefined,
        30_000,
      );
    },
    { timeout: scaled(120_000) },
  );

  after(async () => {
    await prometheus?.stop();
    await node?.cleanup();
  });

  test("the kubernetes-mixin's KubeNodeEviction expression names the node and the signal", async () => {
    // kubernetes-mixin alerts/kubelet.libsonnet, KubeNodeEviction, with its job selector set to evictd's.
    const mixin =
      'sum(rate(kubelet_evictions{job="evictd"}[15m])) by (cluster, eviction_signal, instance)' +
      " * on (cluster, instance) group_left(node)" +
      ' max by (cluster, instance, node) (kubelet_node_name{job="evictd"}) > 0';
    const result = await waitUntil(
      "the mixin's expression to return a series",
      async () => {
        const r = await query(prometheus, mixin);
        return r.length > 0 ? r : undefined;
      },
      15_000,
    );
    assert.deepEqual(
      result.map((s) => [s.metric["node"], s.metric["eviction_signal"]]),
      [[nodeName, "memory.available"]],
    );
  });

  test("every metric docs/monitoring.md lists is ingested, with its type", async () => {
    const names = new Set(
      (await query(prometheus, 'group by (__name__) ({job="evictd"})')).map((s) => s.metric["__name__"]),
    );
    const documented = documentedMetrics();
    assert.ok(documented.length >= 15, `the table lists ${documented.length} metrics`);
    const missing = documented
      .map((entry) => entry.split(" ") as [string, string])
      .filter(([name, type]) => !names.has(type === "histogram" ? `${name}_bucket` : name))
      .map(([name]) => name);
    assert.deepEqual(missing, [], `ingested: ${[...names].sort().join(", ")}`);
  });

  test("every query of the dashboard returns data", async () => {
    const dashboard: unknown = JSON.parse(
      readFileSync(join(REPO_ROOT, "deploy", "monitoring", "evictd-dashboard.json"), "utf8"),
    );
    const queries = dashboardQueries(dashboard);
    assert.ok(queries.length >= 10, `${queries.length} queries`);
    const empty: string[] = [];
    for (const q of queries)
      if ((await query(prometheus, q.expr)).length === 0) empty.push(`${q.title}: ${q.expr}`);
    assert.deepEqual(empty, []);
  });
});
