/**
 * The charts' axes: a byte axis ticks at round binary values (its labels are binary units), a count
 * axis at round decimal ones, and the last time label stays inside the SVG.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Signal } from "../../core/model.js";
import type { ReportData, ReportThreshold } from "./report-data.js";
import { binaryStep, binaryTicks, byteTickLabel, renderSignalCharts } from "./report-html.js";

const Mi = 1024 ** 2;
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

/** A trace of `values` (one step a second) of one signal, with one hard threshold at `level`. */
function data(signal: Signal, values: readonly number[], level: number, stepMs = 1000): ReportData {
  const threshold: ReportThreshold = {
    id: `hard/${signal}`,
    signal,
    hard: true,
    origin: "hard",
    value: String(level),
    gracePeriodMs: 0,
    minReclaim: "0",
    level: values.map(() => level),
    reclaimLevel: values.map(() => level),
  };
  return {
    source: "test",
    times: values.map((_, i) => T0 + i * stepMs),
    series: [{ signal, available: [...values], capacity: values.map(() => Number.NaN) }],
    thresholds: [threshold],
    grace: new Map(),
    met: new Map(),
    conditions: new Map(),
    evictions: [],
    refusals: [],
    podUsage: undefined,
    config: { evictionMaxPodGracePeriod: 0, pressureTransitionPeriodMs: 0, layout: "nodefs only" },
    warnings: [],
  };
}

/** The y tick labels of the (only) chart, bottom to top. */
function yLabels(html: string): string[] {
  return [...html.matchAll(/<text x="68" y="[^"]+" text-anchor="end">([^<]*)<\/text>/g)].map(
    (m) => m[1] ?? "",
  );
}

describe("chart axes", () => {
  test("bytes: a power-of-two step, at most the ticks asked for", () => {
    assert.equal(binaryStep(600 * Mi, 4), 256 * Mi);
    assert.equal(binaryStep(1.5 * 1024 * Mi, 4), 512 * Mi);
    assert.equal(binaryStep(1, 4), 1, "never under a byte");
    assert.deepEqual(binaryTicks(1024 * Mi, 4), [0, 256 * Mi, 512 * Mi, 768 * Mi, 1024 * Mi]);
    assert.deepEqual([0, 512 * Mi, 1024 * Mi, 1536 * Mi, 2048 * Mi].map(byteTickLabel), [
      "0 B",
      "512 MiB",
      "1 GiB",
      "1.5 GiB",
      "2 GiB",
    ]);
  });

  test("a memory chart with a 500Mi threshold ticks at round binary values, not at 477 MiB", () => {
    const html = renderSignalCharts(data("memory.available", [700 * Mi, 650 * Mi, 560 * Mi], 500 * Mi));
    assert.deepEqual(yLabels(html), ["0 B", "256 MiB", "512 MiB", "768 MiB"]);
  });

  test("a count axis keeps round decimal ticks", () => {
    const html = renderSignalCharts(data("pid.available", [30_000, 28_000, 25_000], 1_000));
    assert.deepEqual(yLabels(html), ["0", "10k", "20k", "30k"]);
  });

  test("the last time label stays inside the SVG", () => {
    // 10 minutes ending on a whole minute: the last tick sits at the right edge of the plot.
    const values = Array.from({ length: 601 }, () => 700 * Mi);
    const html = renderSignalCharts(data("memory.available", values, 500 * Mi));
    const width = Number(/<svg [^>]*width="(\d+)"/.exec(html)?.[1]);
    const labels = [
      ...html.matchAll(/<text x="([\d.]+)" y="[\d.]+" text-anchor="(middle|end)">\d\d:\d\d:\d\d<\/text>/g),
    ];
    const last = labels.at(-1);
    assert.ok(last !== undefined);
    assert.equal(last[2], "end", "anchored at its end");
    assert.ok(Number(last[1]) <= width);
    for (const [, x, anchor] of labels)
      if (anchor === "middle") assert.ok(Number(x) + 26 <= width, `label at ${x} of ${width}`);
  });
});
