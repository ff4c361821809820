/**
 * The replay report's data and page, from the examples' scenarios replayed by the engine: what the
 * charts are drawn from (threshold levels, grace and condition spans, evictions with the ranking of
 * their moment, refusals, per-pod usage) and that the page draws each of them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { readFileSync } from "node:fs";
import { parseJsonExact } from "../../src/formats/json/parse-json-exact.js";
import { loadScenarioFile, loadScenarioValue } from "../../src/formats/scenario/load-scenario.js";
import { planReplay, runReplay } from "../../src/app/replay/run-replay.js";
import { ReportCollector, type ReportData } from "../../src/app/report/report-data.js";
import { MAX_POINTS, renderReportHtml } from "../../src/app/report/report-html.js";
import { REAL_DATA, REPO_ROOT } from "../support/repo-paths.js";

async function reportOf(example: string): Promise<ReportData> {
  const loaded = await loadScenarioFile(join(REPO_ROOT, "examples", example));
  assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.issues));
  const scenario = loaded.scenario;
  const plan = planReplay(scenario);
  const collector = new ReportCollector(example, scenario.config);
  runReplay(scenario, plan, (o) => collector.step(o, plan));
  return collector.finish(["a warning <with> markup"]);
}

const MI = 1024 * 1024;

/**
 * The report of the real Kubernetes 1.35 node (summary-1.json, with PSI) over two steps, the second
 * with the node's memory pressure edited up, and a header that says what the node runs.
 */
async function reportOfRealNode(): Promise<ReportData> {
  const text = readFileSync(join(REAL_DATA, "summary-1.json"), "utf8");
  const later = parseJsonExact(text) as {
    node: { memory: { time: string; psi: { some: { avg10: number } } } };
  };
  later.node.memory.time = "2026-06-26T10:14:45Z";
  later.node.memory.psi.some.avg10 = 12.5;
  const loaded = await loadScenarioValue(
    {
      start: "2026-06-26T10:14:35Z",
      config: { evictionHard: { "memory.available": "100Mi" } },
      environment: {
        kubeletVersion: "v1.35.0",
        containerRuntimeVersion: "containerd://2.1.1",
        cgroupVersion: 2,
        statsProvider: "cadvisor",
      },
      pods: JSON.parse(readFileSync(join(REAL_DATA, "pods-1.json"), "utf8")) as unknown,
      steps: [
        { at: "0s", summary: parseJsonExact(text) },
        { at: "10s", summary: later },
      ],
    },
    "summary-1",
    REAL_DATA,
  );
  assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.issues));
  assert.deepEqual(
    loaded.scenario.warnings.filter((w) => w.path.startsWith("environment")),
    [],
    "environment is a known header field",
  );
  const scenario = loaded.scenario;
  const plan = planReplay(scenario);
  const collector = new ReportCollector("summary-1", scenario.config, undefined, scenario.environment);
  runReplay(scenario, plan, (o) => collector.step(o, plan));
  return collector.finish([]);
}

describe("replay report", () => {
  test("hard memory pressure: levels, the condition span, the eviction card with its ranking", async () => {
    const data = await reportOf("hard-memory-pressure.yaml");
    assert.equal(data.times.length, 4);
    const hard = data.thresholds.find((t) => t.signal === "memory.available" && t.hard);
    assert.ok(hard);
    assert.deepEqual(hard.level, [500 * MI, 500 * MI, 500 * MI, 500 * MI]);
    const mem = data.series.find((s) => s.signal === "memory.available");
    assert.equal(mem?.available[0], 2 * 1024 * MI);
    assert.equal(mem?.capacity[0], 4 * 1024 * MI);

    assert.equal(data.evictions.length, 1);
    const [e] = data.evictions;
    assert.equal(e?.record.pod, "default/web");
    assert.equal(e?.step, 1);
    // The ranking of that moment, with the evicted pod first and the critical pod said to be safe.
    assert.equal(e?.ranking[0]?.pod, "default/web");
    assert.match(e?.ranking[0]?.reason ?? "", /over its request/);
    assert.ok(e?.ranking.some((p) => p.pod === "kube-system/etcd" && p.critical));
    assert.equal(e?.record.annotations.starved_resource, "memory");

    // MemoryPressure from the eviction's step until the transition period ran out (5m10s: off).
    assert.deepEqual(data.conditions.get("MemoryPressure"), [{ from: 1, to: 2 }]);
    assert.deepEqual(data.conditions.get("DiskPressure"), []);

    // The stacked usage is memory, every pod on its own (four pods), web marked at its eviction.
    assert.equal(data.podUsage?.signal, "memory.available");
    const web = data.podUsage?.pods.find((p) => p.pod === "default/web");
    assert.equal(web?.evictedAt, 1);
    assert.equal(web?.values[0], 500 * MI);
  });

  test("a soft threshold's grace period is a span from first met to the eviction", async () => {
    const data = await reportOf("soft-memory-pressure.yaml");
    const soft = data.thresholds.filter((t) => !t.hard);
    assert.ok(soft.length > 0, "the example has soft thresholds");
    const spans = soft.flatMap((t) => data.grace.get(t.id) ?? []);
    assert.ok(spans.length > 0, "a grace period ran");
    for (const sp of spans) assert.ok(sp.from <= sp.to);
    // It ends the step before the one that evicts for it, or with the trace.
    const evicted = data.evictions.find((e) => e.record.signal === "memory.available");
    if (evicted !== undefined)
      assert.ok(spans.some((sp) => sp.to === evicted.step - 1 || sp.to >= evicted.step));
  });

  test("admissions refused under pressure are listed with their messages", async () => {
    const data = await reportOf("admission-under-pressure.yaml");
    assert.ok(data.refusals.length > 0);
    for (const r of data.refusals) assert.match(r.message, /The node had condition/);
  });

  test("the page: one chart per observed signal, thresholds, markers, cards, config, escaped text", async () => {
    const data = await reportOf("hard-memory-pressure.yaml");
    const html = renderReportHtml(data, "evictd test");
    const charts = html.match(/<figure class="chart" data-signal="[^"]+"/g) ?? [];
    const observed = data.series.filter((s) => s.available.some((v) => !Number.isNaN(v))).length;
    assert.equal(charts.length, observed);
    assert.match(html, /<figure class="chart usage" data-signal="memory.available"/);
    assert.match(html, /<path class="avail" d="M[\d.,LM]+"/);
    assert.match(html, /<path class="hard" d="M/);
    assert.match(html, /<rect class="cond"/);
    assert.match(html, /<g class="evict">/);
    assert.match(html, /<tr class="picked"><td>1<\/td><td>default\/web<\/td>/);
    assert.match(html, /a warning &#60;with&#62; markup/);
    assert.doesNotMatch(
      html,
      /<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/,
      "nothing to run, nothing fetched",
    );
  });

  test("a live window forgets the steps before it and moves spans and evictions down", async () => {
    const loaded = await loadScenarioFile(join(REPO_ROOT, "examples", "hard-memory-pressure.yaml"));
    assert.ok(loaded.ok);
    const scenario = loaded.scenario;
    const plan = planReplay(scenario);
    const collector = new ReportCollector("live", scenario.config);
    runReplay(scenario, plan, (o) => collector.step(o, plan));
    // Steps at 0s, 10s, 20s and 5m10s; the eviction at 10s, MemoryPressure over 10s–20s.
    collector.dropBefore(scenario.start + 15_000);
    const data = collector.finish([]);
    assert.deepEqual(data.times, [scenario.start + 20_000, scenario.start + 310_000]);
    assert.equal(data.series.find((s) => s.signal === "memory.available")?.available.length, 2);
    assert.deepEqual(data.evictions, [], "the eviction at 10s is before the window");
    assert.deepEqual(data.conditions.get("MemoryPressure"), [{ from: 0, to: 0 }]);
    assert.equal(data.podUsage?.pods.find((p) => p.pod === "default/web")?.evictedAt, undefined);
  });

  test("memory pressure (PSI) beside the memory signals, said to be unused, when the trace has it", async () => {
    const data = await reportOfRealNode();
    assert.deepEqual(data.pressure, [
      { signal: "memory.available", of: "node", some: [0, 12.5], full: [0, 0] },
      { signal: "allocatableMemory.available", of: "pods cgroup", some: [0, 0], full: [0, 0] },
    ]);
    const html = renderReportHtml(data, "evictd test");
    const chart = (signal: string): string =>
      new RegExp(`<figure class="chart" data-signal="${signal}">[\\s\\S]*?</figure>`).exec(html)?.[0] ?? "";
    assert.match(
      chart("memory.available"),
      /PSI \(not used for eviction\): node memory pressure, avg10 · peak some 12.5%, full 0%/,
    );
    assert.match(chart("memory.available"), /<path class="psi-some" d="M/);
    assert.match(
      chart("allocatableMemory.available"),
      /PSI \(not used for eviction\): pods cgroup memory pressure/,
    );
    assert.doesNotMatch(chart("nodefs.available"), /PSI/, "only beside memory signals");
    // The header says what the node runs.
    assert.match(
      html,
      /recorded on: kubelet v1\.35\.0 · containerd:\/\/2\.1\.1 · cgroup v2 · pod and container stats from cAdvisor/,
    );
    // Data only: the decisions are those of the same trace without it.
    assert.equal(data.evictions.length, 0);
  });

  test("no PSI, no node-memory views and no environment line for a trace without them", async () => {
    const data = await reportOf("hard-memory-pressure.yaml");
    assert.equal(data.pressure, undefined);
    assert.equal(data.nodeMemoryViews, undefined);
    assert.equal(data.environment, undefined);
    const html = renderReportHtml(data, "evictd test");
    assert.doesNotMatch(html, /PSI|class="psi|recorded on:/);
    assert.doesNotMatch(html, /evictd's addition|memory three ways|<svg class="views"|<path class="views-/);
  });

  test("the node's memory three ways beside memory.available, said to be unused, when the trace carries them", async () => {
    const GI = 1024 * MI;
    const sample = (available: number): object => ({
      node: { memory: { availableBytes: available, workingSetBytes: 4 * GI - available } },
    });
    const views = (kubelet: number, kernel: number, withKernel: number): object => ({
      source: "the root cgroup's memory.stat and /proc/meminfo",
      capacityBytes: 4 * GI,
      kubelet: { usageFrom: "anon + file", workingSetBytes: 4 * GI - kubelet, availableBytes: kubelet },
      kernelAvailable: { availableBytes: kernel },
      withKernelMemory: {
        kernelMemoryBytes: kubelet - withKernel,
        kernelMemoryFrom: "kernel + sock",
        alreadyInKubeletFigure: false,
        workingSetBytes: 4 * GI - withKernel,
        availableBytes: withKernel,
      },
    });
    const document = (withViews: boolean): object => ({
      start: "2025-01-01T00:00:00Z",
      config: { evictionHard: { "memory.available": "500Mi" }, mergeDefaultEvictionSettings: true },
      steps: [
        { at: "0s", summary: sample(2 * GI) },
        {
          at: "10s",
          summary: sample(400 * MI),
          ...(withViews ? { nodeMemoryViews: { at: "10.25s", ...views(390 * MI, 700 * MI, 150 * MI) } } : {}),
        },
        {
          at: "20s",
          summary: sample(GI),
          ...(withViews ? { nodeMemoryViews: views(GI, 1300 * MI, 800 * MI) } : {}),
        },
      ],
    });
    const replayed = async (withViews: boolean): Promise<ReportData> => {
      const loaded = await loadScenarioValue(document(withViews), "views", REPO_ROOT);
      assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.issues));
      assert.deepEqual(loaded.scenario.warnings, [], "nodeMemoryViews is a known step field");
      const scenario = loaded.scenario;
      const plan = planReplay(scenario);
      const collector = new ReportCollector("views", scenario.config);
      runReplay(scenario, plan, (o) => collector.step(o, plan));
      return collector.finish([]);
    };
    const data = await replayed(true);
    const start = Date.parse("2025-01-01T00:00:00Z");
    const { source, ...figures } = data.nodeMemoryViews ?? { source: undefined };
    assert.equal(source, "the root cgroup's memory.stat and /proc/meminfo");
    assert.deepEqual(figures, {
      // Step 0 carries none; step 1 was read 250 ms after its sample; step 2 says no time (its own).
      readAt: [Number.NaN, start + 10_250, start + 20_000],
      capacity: [Number.NaN, 4 * GI, 4 * GI],
      kubelet: [Number.NaN, 390 * MI, GI],
      kernelAvailable: [Number.NaN, 700 * MI, 1300 * MI],
      withKernelMemory: [Number.NaN, 150 * MI, 800 * MI],
      kernelMemory: [Number.NaN, 240 * MI, 224 * MI],
      usageFrom: "anon + file",
      kernelMemoryFrom: "kernel + sock",
      kernelMemoryInKubeletFigure: false,
    });

    const html = renderReportHtml(data, "evictd test");
    const chart = (signal: string): string =>
      new RegExp(`<figure class="chart" data-signal="${signal}">[\\s\\S]*?</figure>`).exec(html)?.[0] ?? "";
    const memory = chart("memory.available");
    assert.match(
      memory,
      /evictd's addition, not used for eviction: the node's memory three ways, as recorded after each step's decision \(read up to 250ms after its sample\) from the root cgroup&#39;s memory\.stat and \/proc\/meminfo · lowest: the kubelet&#39;s formula 390 MiB, MemAvailable 700 MiB, with kernel memory 150 MiB \(kernel memory up to 240 MiB: kernel \+ sock\)/,
    );
    for (const cls of ["views-signal", "views-kubelet", "views-kernel", "views-kmem"])
      assert.match(memory, new RegExp(`<path class="${cls}" d="M`), cls);
    assert.equal(html.match(/<svg class="views"/g)?.length, 1, "beside memory.available only");
    assert.doesNotMatch(chart("nodefs.available"), /views/);

    // Data only: the decisions, the signal and the thresholds are those of the same trace without them.
    const without = await replayed(false);
    assert.equal(without.nodeMemoryViews, undefined);
    const { nodeMemoryViews: _, ...rest } = data;
    assert.deepEqual(rest, without);
    assert.equal(data.evictions.length, 0);
    assert.deepEqual(data.met.get(data.thresholds.find((t) => t.signal === "memory.available")?.id ?? ""), [
      { from: 1, to: 1 },
    ]);
  });

  test("long traces are thinned per bucket to their lowest and highest values", () => {
    const n = 10_000;
    const times = Array.from({ length: n }, (_, i) => i * 10_000);
    // A dip at one step in the middle must survive the thinning.
    const available = times.map((_, i) => (i === 5_003 ? 1 : 1000));
    const data: ReportData = {
      source: "synthetic",
      times,
      series: [{ signal: "memory.available", available, capacity: times.map(() => 2000) }],
      thresholds: [],
      grace: new Map(),
      met: new Map(),
      conditions: new Map(),
      evictions: [],
      refusals: [],
      podUsage: undefined,
      config: { evictionMaxPodGracePeriod: 0, pressureTransitionPeriodMs: 300_000, layout: "single" },
      warnings: [],
    };
    const html = renderReportHtml(data, "evictd test");
    const d = /<path class="avail" d="([^"]+)"/.exec(html)?.[1] ?? "";
    const points = d.split(/[ML]/).filter((p) => p !== "");
    assert.ok(points.length <= MAX_POINTS + 1, `${points.length} points`);
    const ys = points.map((p) => Number(p.split(",")[1]));
    assert.ok(new Set(ys).size === 2, "the dip is drawn");
  });
});
