/**
 * The replay report's data and page, from the examples' scenarios replayed by the engine: what the
 * charts are drawn from (threshold levels, grace and condition spans, evictions with the ranking of
 * their moment, refusals, per-pod usage) and that the page draws each of them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { loadScenarioFile } from "../../src/formats/scenario/load-scenario.js";
import { planReplay, runReplay } from "../../src/app/replay/run-replay.js";
import { ReportCollector, type ReportData } from "../../src/app/report/report-data.js";
import { MAX_POINTS, renderReportHtml } from "../../src/app/report/report-html.js";
import { REPO_ROOT } from "../support/repo-paths.js";

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
