/**
 * `evictd watch` against the fake API server (real payload shapes from test/fixtures/real-data): shadow mode
 * touches nothing; enforce mode evicts as the kubelet does (status, event, then delete with the uid
 * precondition), never a critical pod and never a pod twice; the Eviction API path survives a
 * PodDisruptionBudget; and the trace the loop records replays through `evictd replay` to exactly
 * the decisions the loop made.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { after, describe, test } from "node:test";
import { EVICTD_BIN, REPO_ROOT, sleep } from "../harness/node-harness.js";
import { prometheusSkip, startPrometheus, type PrometheusServer } from "../support/prometheus-server.js";
import { startFakeApiServer, type RecordedRequest } from "../harness/fake-api-server/fake-api-server.js";
import {
  decisions,
  MiB,
  NORMAL,
  refresh,
  removeWatchDirs,
  startWatch,
  until,
  writes,
} from "./watch-harness.js";

after(removeWatchDirs);

describe("evictd watch against a fake API server", () => {
  test("shadow mode: logs and exports what it would evict, writes nothing to the API", async () => {
    const w = await startWatch("shadow");
    try {
      await until("a first synchronize", async () =>
        (await decisions(w.decisionLog).catch(() => [])).length > 0 ? true : undefined,
      );
      refresh(w.server, 100 * MiB);
      const line = await until("a would-evict line", () =>
        w.lines.find((l) => l.msg.startsWith("would evict ")),
      );
      // No stats for a pod that is still being created: the kubelet ranks it first.
      assert.match(line.msg, /^would evict scraper\/e2e-container-creating \(memory, memory.available\)/);
      const url = await w.url;
      const status = (await (await fetch(`${url}/status`)).json()) as {
        conditions: { type: string; status: string }[];
        ranking: { next: string };
        capabilities: string[];
      };
      assert.equal(status.conditions.find((c) => c.type === "MemoryPressure")?.status, "True");
      assert.equal(status.ranking.next, "scraper/e2e-container-creating");
      assert.ok(status.capabilities.some((c) => c.startsWith("shadow mode")));
      const metrics = await (await fetch(`${url}/metrics`)).text();
      assert.match(metrics, /kubelet_evictions\{eviction_signal="memory.available"\} [1-9]/);
      // The same view for people at /: the node, the condition, who goes next, the chart so far.
      const page = await (await fetch(`${url}/`)).text();
      assert.match(page, /<h1>evictd · datagen-1-35<\/h1>/);
      assert.match(page, /MemoryPressure True/);
      assert.match(page, /<code id="next-pod">scraper\/e2e-container-creating<\/code>/);
      assert.match(page, /<figure class="chart" data-signal="memory.available"/);
      assert.match(page, /<g class="evict">/, "the would-be eviction is marked on the chart");
      assert.deepEqual(writes(w.server), [], "shadow mode must not write to the API");
    } finally {
      await w.stop();
    }
  });

  test(
    "scraped by a real Prometheus: the mixin's KubeNodeEviction expression names the node and the signal",
    { skip: prometheusSkip },
    async () => {
      const w = await startWatch("shadow");
      let prometheus: PrometheusServer | undefined;
      try {
        const url = await w.url;
        prometheus = await startPrometheus({
          scrapeConfigs: [
            { job_name: "evictd", scrape_interval: "1s", static_configs: [{ targets: [new URL(url).host] }] },
          ],
        });
        const query = async (expr: string): Promise<{ metric: Record<string, string> }[]> => {
          const res = await fetch(`${prometheus?.url}/api/v1/query`, {
            method: "POST",
            body: new URLSearchParams({ query: expr }),
          });
          const body = (await res.json()) as { data?: { result: { metric: Record<string, string> }[] } };
          return body.data?.result ?? [];
        };
        // A 0 scraped before the pressure: rate() measures the eviction from it.
        await until(
          "kubelet_evictions 0 in Prometheus",
          async () =>
            (await query('kubelet_evictions{job="evictd",eviction_signal="memory.available"} == 0')).length >
              0 || undefined,
          30_000,
        );
        refresh(w.server, 100 * MiB);
        // kubernetes-mixin alerts/kubelet.libsonnet, KubeNodeEviction, on evictd's job.
        const mixin =
          'sum(rate(kubelet_evictions{job="evictd"}[15m])) by (cluster, eviction_signal, instance)' +
          " * on (cluster, instance) group_left(node)" +
          ' max by (cluster, instance, node) (kubelet_node_name{job="evictd"}) > 0';
        const result = await until(
          "the mixin's expression to return a series",
          async () => {
            const r = await query(mixin);
            return r.length > 0 ? r : undefined;
          },
          30_000,
        );
        assert.deepEqual(
          result.map((r) => [r.metric["node"], r.metric["eviction_signal"]]),
          [[w.server.nodeName, "memory.available"]],
        );
      } finally {
        await prometheus?.stop();
        await w.stop();
      }
    },
  );

  test("enforce mode: condition, event, then delete with the uid precondition; one pod per round, no critical pod, none twice; the recorded trace replays to the same decisions", async () => {
    const w = await startWatch("delete");
    try {
      await until("a first synchronize", async () =>
        (await decisions(w.decisionLog).catch(() => [])).length > 0 ? true : undefined,
      );
      refresh(w.server, 100 * MiB);
      const first = await until("the first DELETE", () =>
        w.server.requests.find((r) => r.method === "DELETE"),
      );
      const victim = w.server.state.pods().length; // pods left after the delete
      assert.ok(victim > 0);
      // The kubelet's eviction: condition, event, then the deletion, in that order, for one pod.
      const [patch, event, del] = writes(w.server);
      assert.equal(patch?.method, "PATCH");
      assert.equal(patch.path, "/api/v1/namespaces/scraper/pods/e2e-container-creating/status");
      assert.equal(patch.contentType, "application/strategic-merge-patch+json");
      const status = (
        patch.json as {
          status: Record<string, unknown> & {
            conditions: { type: string; reason: string; message: string }[];
          };
        }
      ).status;
      // No terminal phase: the API server would delete a Failed pod at once, ignoring the grace period.
      assert.deepEqual(Object.keys(status), ["conditions"]);
      assert.deepEqual(
        status.conditions.map((c) => [c.type, c.reason]),
        [["DisruptionTarget", "TerminationByKubelet"]],
      );
      assert.match(
        status.conditions[0]?.message ?? "",
        /^The node was low on resource: memory\. Threshold quantity: 250Mi, available: 100Mi\. /,
      );
      assert.equal(event?.method, "POST");
      assert.equal(event.path, "/api/v1/namespaces/scraper/events");
      assert.deepEqual(
        [(event.json as { reason: string }).reason, (event.json as { type: string }).type],
        ["Evicted", "Warning"],
      );
      assert.equal(del, first);
      assert.equal(del.path, "/api/v1/namespaces/scraper/pods/e2e-container-creating");
      const options = del.json as { gracePeriodSeconds: number; preconditions: { uid: string } };
      assert.equal(
        options.gracePeriodSeconds,
        1,
        "hard threshold: the kubelet's immediate grace period (1 s), not the pod's 30 s",
      );
      assert.ok(options.preconditions.uid.length > 0);
      for (const r of [patch, event, del]) assert.equal(r.authorization, `Bearer ${w.server.token}`);

      // The pod is gone; the same (stale) sample is no reason to evict another one.
      await sleep(600);
      assert.equal(
        w.server.requests.filter((r) => r.method === "DELETE").length,
        1,
        "stale stats must not evict a second pod",
      );
      // A fresh sample still under pressure: the next pod in kubelet order goes.
      refresh(w.server, 100 * MiB);
      const second = await until(
        "the second DELETE",
        () => w.server.requests.filter((r) => r.method === "DELETE")[1],
      );
      assert.equal(second.path, "/api/v1/namespaces/scraper/pods/e2e-kube-state-metrics-75b885dc9-97mtr");
      // The kubelet's AnnotatedEventf: a pod with stats gets its offending containers and the
      // starved resource on the Evicted event; one without stats (the first) gets none.
      const events = w.server.requests.filter((r) => r.method === "POST" && r.path.endsWith("/events"));
      const annotationsOf = (r: RecordedRequest | undefined): unknown =>
        (r?.json as { metadata: { annotations?: unknown } } | undefined)?.metadata.annotations;
      assert.equal(annotationsOf(events[0]), undefined);
      const annotations = annotationsOf(events[1]) as Record<string, string>;
      assert.deepEqual(Object.keys(annotations).sort(), [
        "offending_containers",
        "offending_containers_usage",
        "starved_resource",
      ]);
      assert.equal(annotations["starved_resource"], "memory");
      assert.equal(annotations["offending_containers"], "kube-state-metrics");
      assert.match(annotations["offending_containers_usage"] ?? "", /^\d+Ki$/);
      // Pressure relieved: nobody else goes.
      refresh(w.server, NORMAL);
      await sleep(600);
      refresh(w.server, NORMAL);
      await sleep(600);
      const deletes = w.server.requests.filter((r) => r.method === "DELETE");
      assert.equal(deletes.length, 2);
      assert.equal(
        new Set(deletes.map((d) => (d.json as { preconditions: { uid: string } }).preconditions.uid)).size,
        2,
        "no pod evicted twice",
      );
      for (const d of deletes)
        assert.doesNotMatch(
          d.path,
          /kube-apiserver|etcd|kube-proxy|coredns|metrics-server/,
          "critical pods are never touched",
        );
    } finally {
      await w.stop();
    }

    // The trace holds exactly what the loop saw: replaying it gives the loop's decisions.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [EVICTD_BIN, "replay", w.trace, "--output", "jsonl"],
      { cwd: REPO_ROOT, maxBuffer: 64 * MiB },
    );
    const replayed = stdout
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((r) => r["type"] === "step");
    const live = (await decisions(w.decisionLog)).map((r) => {
      const { wake: _wake, reactionMs: _reaction, sinceBelowMs: _sinceBelow, timings: _timings, ...rest } = r;
      return rest;
    });
    assert.ok(live.length >= 5, `${live.length} synchronize runs`);
    assert.equal(replayed.length, live.length);
    const strip = (r: Record<string, unknown>): Record<string, unknown> => {
      const { step: _step, ...rest } = r;
      return rest;
    };
    assert.deepEqual(replayed.map(strip), live.map(strip));
    assert.equal(live.flatMap((r) => (r["evictions"] as unknown[] | undefined) ?? []).length, 2);
  });

  test("delete mode keeps the grace period: the evicted pod terminates for as long as its containers take to stop, and no second pod is evicted meanwhile", async () => {
    // A soft threshold (pods get evictionMaxPodGracePeriod) and a kubelet whose containers take
    // 2.5 s to stop, then report Failed, then remove the pod: the kubelet's own sequence.
    const server = await startFakeApiServer({ deletion: { containersStopInMs: 2500 } });
    const dir = await mkdtemp(path.join(os.tmpdir(), "evictd-watch-soft-"));
    const configFile = path.join(dir, "kubelet.yaml");
    await writeFile(
      configFile,
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
    const w = await startWatch("delete", server, { configFile });
    // The kubelet's Summary keeps saying 300Mi available: pressure persists throughout.
    const pressure = setInterval(() => refresh(w.server, 300 * MiB), 100);
    try {
      await until("a first synchronize", async () =>
        (await decisions(w.decisionLog).catch(() => [])).length > 0 ? true : undefined,
      );
      const deletes = (): RecordedRequest[] => w.server.requests.filter((r) => r.method === "DELETE");
      const first = await until("the first DELETE", () => deletes()[0]);
      const deletedAt = Date.now();
      const asked = (first.json as { gracePeriodSeconds: number }).gracePeriodSeconds;
      assert.equal(asked, 20, "soft threshold: min(evictionMaxPodGracePeriod, the pod's 30 s)");
      const [, namespace = "", name = ""] =
        /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)$/.exec(first.path) ?? [];
      // Terminating, not gone: the grace period was accepted, not cut to 0 by a terminal phase.
      await sleep(300);
      const terminating = w.server.pod(namespace, name);
      assert.ok(terminating !== undefined, "the pod must still exist while its containers stop");
      assert.equal(terminating.metadata.deletionGracePeriodSeconds, 20);
      assert.notEqual(terminating.status?.phase, "Failed");
      // While it exists, nobody else is evicted.
      while (w.server.pod(namespace, name) !== undefined) {
        assert.equal(deletes().length, 1, "a second pod was evicted while the first was still terminating");
        await sleep(10);
      }
      const goneAfterMs = Date.now() - deletedAt;
      assert.ok(goneAfterMs >= 2000, `the pod was removed ${goneAfterMs} ms after its DELETE`);
      // Still under pressure once it is gone: the next pod goes, once.
      const second = await until("the second DELETE", () => deletes()[1]);
      assert.notEqual(second.path, first.path);
      await sleep(300);
      assert.equal(deletes().length, 2);
    } finally {
      clearInterval(pressure);
      await w.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("Eviction API: a PodDisruptionBudget that blocks is a failed kill (retried, reported, no crash); once it allows, the pod is evicted once", async () => {
    const server = await startFakeApiServer();
    server.blockEvictions({ name: "scraper-pdb", desiredHealthy: 2, currentHealthy: 2 });
    const w = await startWatch("eviction-api", server);
    try {
      await until("a first synchronize", async () =>
        (await decisions(w.decisionLog).catch(() => [])).length > 0 ? true : undefined,
      );
      refresh(w.server, 100 * MiB);
      const failed = await until("a failed eviction", () =>
        w.lines.find((l) => l.msg.startsWith("failed to evict ")),
      );
      assert.match(String(failed.fields["err"]), /scraper-pdb|disruption budget/i);
      assert.ok(
        w.server.requests.filter((r) => r.path.endsWith("/eviction")).length >= 3,
        "the blocked eviction was retried",
      );
      w.server.allowEvictions();
      refresh(w.server, 100 * MiB);
      await until(
        "an eviction through the API",
        () => w.lines.find((l) => l.msg.startsWith("evicted ")),
        5000,
      ).catch((e: unknown) => {
        console.error(
          w.lines
            .slice(-15)
            .map((l) => `${l.level} ${l.msg} ${JSON.stringify(l.fields)}`)
            .join("\n"),
        );
        throw e;
      });
      const evictionPosts = w.server.requests.filter((r) => r.path.endsWith("/eviction"));
      const body = evictionPosts.at(-1)?.json as {
        apiVersion: string;
        kind: string;
        deleteOptions: { preconditions: { uid: string } };
      };
      assert.deepEqual([body.apiVersion, body.kind], ["policy/v1", "Eviction"]);
      assert.equal(
        w.server.requests.filter((r) => r.method === "DELETE").length,
        0,
        "the Eviction API deletes, not evictd",
      );
    } finally {
      await w.stop();
    }
  });
});
