/**
 * A replay report as one self-contained HTML page: inline SVG charts (d3-scale for the axes,
 * d3-shape for the paths), inline CSS, no script and nothing fetched, so it opens anywhere, from a
 * mail attachment too. Pure: report data in, text out.
 *
 * Long traces are thinned for drawing: past {@link MAX_POINTS} steps each bucket of steps keeps its
 * lowest and highest value (a dip to the threshold stays visible), so a day of a node stays a few MB.
 *
 * One file because the page is one drawing: every chart stands on the same time scale, tick rules,
 * thinning and stylesheet, and the sections follow the page from top to bottom; the live page and
 * the comparison page take their formatters and CSS from here rather than keep copies.
 */
import { scaleLinear, scaleUtc, type ScaleLinear, type ScaleTime } from "d3-scale";
import { area, curveStepAfter, line, stack, stackOrderNone, stackOffsetNone } from "d3-shape";
import { SIGNALS } from "../../core/signals.js";
import { count } from "../plural.js";
import { isOomRisk, OOM_RISK_BYTES, OOM_RISK_FRACTION } from "../../core/oom-risk.js";
import type { NodeEnvironment } from "../../core/node/node-environment.js";
import type {
  NodeMemoryViewsSeries,
  PressureSeries,
  ReportData,
  ReportEviction,
  SignalSeries,
  StepSpan,
} from "./report-data.js";

/** Steps drawn per series before thinning. */
export const MAX_POINTS = 1500;
const WIDTH = 1040;
const CHART_HEIGHT = 190;
const MARGIN = { top: 14, right: 16, bottom: 26, left: 74 };
const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#59a14f",
  "#b07aa1",
  "#edc948",
  "#76b7b2",
  "#ff9da7",
  "#9c755f",
  "#e15759",
  "#8cd17d",
  "#86bcb6",
  "#d4a6c8",
  "#bab0ac",
];

export function renderReportHtml(data: ReportData, generatedBy: string): string {
  const n = data.times.length;
  const t0 = data.times[0] ?? 0;
  const t1 = data.times[n - 1] ?? t0;
  const x = scaleUtc()
    .domain([new Date(t0), new Date(t1 > t0 ? t1 : t0 + 1000)])
    .range([MARGIN.left, WIDTH - MARGIN.right]);
  const charts = renderSignalCharts(data);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>evictd replay report: ${esc(data.source)}</title>
<style>${CSS}</style></head>
<body>
<h1>evictd replay report</h1>
<p class="sub">${esc(data.source)} · ${count(n, "step")} · ${esc(iso(t0))} → ${esc(iso(t1))} · ${esc(generatedBy)}</p>
${environmentLine(data.environment)}${verdict(data)}
<h2 id="signals">Signals</h2>
${SIGNAL_LEGEND}
${charts || "<p>No signal was observed.</p>"}
${usageChart(data, x)}
<h2 id="decisions">Decisions</h2>
${data.evictions.length === 0 ? "<p>No pod was evicted.</p>" : data.evictions.map((e, k) => card(data, e, k + 1)).join("\n")}
${refusalList(data)}
<h2 id="configuration">Configuration</h2>
${configSection(data)}
</body></html>
`;
}

/** One chart per observed signal, on a common time axis (also the live page's charts). */
export function renderSignalCharts(data: ReportData): string {
  const n = data.times.length;
  const t0 = data.times[0] ?? 0;
  const t1 = data.times[n - 1] ?? t0;
  const x = scaleUtc()
    .domain([new Date(t0), new Date(t1 > t0 ? t1 : t0 + 1000)])
    .range([MARGIN.left, WIDTH - MARGIN.right]);
  return data.series
    .filter((s) => s.available.some((v) => !Number.isNaN(v)))
    .map((s) => signalChart(data, s, x))
    .join("\n");
}

/** The legend of {@link renderSignalCharts}. */
export const SIGNAL_LEGEND = `<p class="legend"><span class="k avail"></span>observed available <span class="k hard"></span>hard threshold <span class="k soft"></span>soft threshold <span class="k reclaim"></span>minimum-reclaim band <span class="k grace"></span>grace period running <span class="k cond"></span>pressure condition reported <span class="k evict"></span>eviction <span class="k refuse"></span>admission refused</p>`;

/** What the trace's header says of the node it was recorded on, in one line (nothing when it says nothing). */
function environmentLine(env: NodeEnvironment | undefined): string {
  if (env === undefined) return "";
  const parts = [
    env.kubeletVersion !== undefined ? `kubelet ${env.kubeletVersion}` : undefined,
    env.containerRuntimeVersion,
    env.osImage,
    env.kernelVersion !== undefined ? `kernel ${env.kernelVersion}` : undefined,
    env.cgroupVersion !== undefined ? `cgroup v${env.cgroupVersion}` : undefined,
    env.statsProvider !== undefined
      ? `pod and container stats from ${env.statsProvider === "cri" ? "the container runtime (CRI)" : "cAdvisor"}`
      : undefined,
  ].filter((p): p is string => p !== undefined);
  return parts.length === 0 ? "" : `<p class="sub env">recorded on: ${parts.map(esc).join(" · ")}</p>\n`;
}

function verdict(data: ReportData): string {
  const n = data.times.length;
  const mem = data.series.find((s) => s.signal === "memory.available");
  let risky = 0;
  let firstRisk: number | undefined;
  mem?.available.forEach((v, i) => {
    const cap = mem.capacity[i] ?? Number.NaN;
    if (!Number.isNaN(v) && !Number.isNaN(cap) && isOomRisk(v, cap)) {
      risky++;
      firstRisk ??= i;
    }
  });
  const conditions = [...data.conditions]
    .filter(([, spans]) => spans.length > 0)
    .map(([c, spans]) => `${c} ${duration(spanMs(data, spans))} (${spans.length}×)`);
  const cells = [
    ["evictions", String(data.evictions.length), data.evictions.length > 0 ? "bad" : "ok"],
    [
      "OOM-risk moments",
      risky === 0 ? "0" : `${count(risky, "step")}, first ${iso(data.times[firstRisk ?? 0] ?? 0)}`,
      risky > 0 ? "bad" : "ok",
    ],
    [
      "conditions",
      conditions.length === 0 ? "none" : conditions.join(", "),
      conditions.length > 0 ? "warn" : "ok",
    ],
    ["admissions refused", String(data.refusals.length), data.refusals.length > 0 ? "warn" : "ok"],
    ["time range", `${duration((data.times[n - 1] ?? 0) - (data.times[0] ?? 0))} in ${count(n, "step")}`, ""],
  ];
  return `<div class="verdict">${cells
    .map(
      ([k, v, c]) =>
        `<div class="cell ${c ?? ""}"><div class="k">${esc(k ?? "")}</div><div class="v">${esc(v ?? "")}</div></div>`,
    )
    .join("")}</div>
<p class="note">An OOM-risk moment is a step where memory.available was at or below ${amount(OOM_RISK_BYTES, "bytes")} (the kubelet's default hard threshold) or ${OOM_RISK_FRACTION * 100}% of the node's memory, whichever is less: the kernel's OOM killer is that close.</p>`;
}

function signalChart(data: ReportData, s: SignalSeries, x: ScaleTime<number, number>): string {
  const spec = SIGNALS[s.signal];
  const thresholds = data.thresholds.filter((t) => t.signal === s.signal);
  // The capacity is not drawn: scaled to it, the interesting part (near the thresholds) is a sliver.
  const top = Math.max(maxOf(s.available), ...thresholds.map((t) => maxOf(t.reclaimLevel)), 1) * 1.05;
  const unit = spec.unit === "bytes" ? "bytes" : spec.unit;
  const y = yScale(top, unit, CHART_HEIGHT, Y_TICKS);
  const idx = drawIndexes(s.available);
  const parts: string[] = [];
  const band = (spans: readonly StepSpan[], cls: string, title: string): void => {
    for (const sp of spans) {
      const [a, b] = spanX(data, sp, x);
      parts.push(
        `<rect class="${cls}" x="${f(a)}" y="${MARGIN.top}" width="${f(Math.max(1, b - a))}" height="${CHART_HEIGHT - MARGIN.top - MARGIN.bottom}"><title>${esc(title)} ${esc(iso(data.times[sp.from] ?? 0))} → ${esc(iso(data.times[sp.to] ?? 0))}</title></rect>`,
      );
    }
  };
  band(data.conditions.get(spec.condition) ?? [], "cond", `${spec.condition}`);
  for (const t of thresholds)
    if (!t.hard) band(data.grace.get(t.id) ?? [], "grace", `grace period of ${t.id}`);
  for (const t of thresholds) {
    const pts = drawIndexes(t.level);
    const bandPath = area<number>()
      .defined((i) => !Number.isNaN(t.level[i] ?? Number.NaN))
      .x((i) => r1(x(new Date(data.times[i] ?? 0))))
      .y0((i) => r1(y(t.level[i] ?? 0)))
      .y1((i) => r1(y(t.reclaimLevel[i] ?? 0)))
      .curve(curveStepAfter)(pts);
    if (bandPath !== null && t.reclaimLevel.some((v, i) => v !== t.level[i]))
      parts.push(`<path class="reclaim" d="${bandPath}"/>`);
    const path = line<number>()
      .defined((i) => !Number.isNaN(t.level[i] ?? Number.NaN))
      .x((i) => r1(x(new Date(data.times[i] ?? 0))))
      .y((i) => r1(y(t.level[i] ?? 0)))
      .curve(curveStepAfter)(pts);
    if (path !== null)
      parts.push(
        `<path class="${t.hard ? "hard" : "soft"}" d="${path}"><title>${esc(t.id)}: ${esc(t.value)}${t.hard ? "" : `, grace ${duration(t.gracePeriodMs)}`}</title></path>`,
      );
  }
  const availPath = line<number>()
    .defined((i) => !Number.isNaN(s.available[i] ?? Number.NaN))
    .x((i) => r1(x(new Date(data.times[i] ?? 0))))
    .y((i) => r1(y(s.available[i] ?? 0)))(idx);
  if (availPath !== null) parts.push(`<path class="avail" d="${availPath}"/>`);
  data.evictions.forEach((e, k) => {
    if (e.record.signal !== s.signal) return;
    const ex = x(new Date(data.times[e.step] ?? 0));
    parts.push(
      `<g class="evict"><line x1="${f(ex)}" x2="${f(ex)}" y1="${MARGIN.top}" y2="${CHART_HEIGHT - MARGIN.bottom}"/><path d="M${f(ex - 5)},${MARGIN.top - 2}L${f(ex + 5)},${MARGIN.top - 2}L${f(ex)},${MARGIN.top + 7}Z"/><text x="${f(ex + 6)}" y="${MARGIN.top + 8}">${k + 1}</text><title>#${k + 1}: evicted ${esc(e.record.pod)} at ${esc(iso(data.times[e.step] ?? 0))}</title></g>`,
    );
  });
  for (const r of data.refusals) {
    const rx = x(new Date(data.times[r.step] ?? 0));
    const by = CHART_HEIGHT - MARGIN.bottom;
    parts.push(
      `<path class="refuse" d="M${f(rx)},${by}L${f(rx - 4)},${by - 8}L${f(rx + 4)},${by - 8}Z"><title>admission refused: ${esc(r.pod)}</title></path>`,
    );
  }
  const pressure = data.pressure?.find((p) => p.signal === s.signal);
  const views = s.signal === "memory.available" ? data.nodeMemoryViews : undefined;
  return `<figure class="chart" data-signal="${esc(s.signal)}">
<figcaption>${esc(s.signal)} <span class="dim">(${esc(thresholds.map((t) => `${t.hard ? "hard" : "soft"} ${t.value}`).join(", ") || "no threshold")})</span></figcaption>
<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${CHART_HEIGHT}" viewBox="0 0 ${WIDTH} ${CHART_HEIGHT}" role="img" aria-label="${esc(s.signal)} over time">
${axes(x, y, unit)}
${parts.join("\n")}
</svg>${pressure === undefined ? "" : pressureStrip(data, pressure, x)}${views === undefined ? "" : viewsStrip(data, views, s, x)}</figure>`;
}

/** Height of the node-memory views strip under memory.available's chart. */
const VIEWS_HEIGHT = 150;

/**
 * The node's memory three ways a recorder read after each step (evictd's addition), under
 * memory.available on the same time axis, with the signal itself as a thin line to compare them
 * with, and each view's lowest value in words. Drawn apart from the signal's chart and said to be
 * unused: no threshold is drawn against them, and no decision reads them.
 */
function viewsStrip(
  data: ReportData,
  v: NodeMemoryViewsSeries,
  signal: SignalSeries,
  x: ScaleTime<number, number>,
): string {
  const top =
    Math.max(
      maxOf(v.kubelet),
      maxOf(v.kernelAvailable),
      maxOf(v.withKernelMemory),
      maxOf(signal.available),
      1,
    ) * 1.05;
  const y = yScale(top, "bytes", VIEWS_HEIGHT, 3);
  const path = (values: readonly number[], at: readonly number[], cls: string, title: string): string => {
    const d = line<number>()
      .defined((i) => !Number.isNaN(values[i] ?? Number.NaN))
      .x((i) => r1(x(new Date(at[i] ?? 0))))
      .y((i) => r1(y(values[i] ?? 0)))(drawIndexes(values));
    return d === null ? "" : `<path class="${cls}" d="${d}"><title>${esc(title)}</title></path>`;
  };
  const reported = (values: readonly number[]): boolean => values.some((n) => !Number.isNaN(n));
  const lowest = (values: readonly number[]): string =>
    reported(values) ? amount(minOf(values), "bytes") : "not read";
  const lag = v.readAt.reduce((m, at, i) => {
    const d = at - (data.times[i] ?? at);
    return Number.isNaN(d) || d <= m ? m : d;
  }, 0);
  const kernelNote = !reported(v.withKernelMemory)
    ? "with kernel memory: not read (nothing said what kernel memory was)"
    : v.kernelMemoryInKubeletFigure
      ? `with kernel memory ${lowest(v.withKernelMemory)} (the kubelet's figure: ${v.usageFrom ?? "its usage"} counts kernel memory already, up to ${amount(maxOf(v.kernelMemory), "bytes")} of ${v.kernelMemoryFrom ?? "it"})`
      : `with kernel memory ${lowest(v.withKernelMemory)} (kernel memory up to ${amount(maxOf(v.kernelMemory), "bytes")}${v.kernelMemoryFrom === undefined ? "" : `: ${v.kernelMemoryFrom}`})`;
  const words = [
    `the kubelet's formula ${lowest(v.kubelet)}`,
    `MemAvailable ${lowest(v.kernelAvailable)}`,
    kernelNote,
  ].join(", ");
  return `
<p class="views-caption">evictd's addition, not used for eviction: the node's memory three ways, as recorded after each step's decision${lag > 0 ? ` (read up to ${duration(lag)} after its sample)` : ""}${v.source === undefined ? "" : ` from ${esc(v.source)}`} · lowest: ${esc(words)} <span class="k views-signal"></span>memory.available (the signal) <span class="k views-kubelet"></span>the kubelet's formula <span class="k views-kernel"></span>MemAvailable <span class="k views-kmem"></span>with kernel memory</p>
<svg class="views" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${VIEWS_HEIGHT}" viewBox="0 0 ${WIDTH} ${VIEWS_HEIGHT}" role="img" aria-label="the node's memory three ways over time (evictd's addition, not used for eviction)">
${axes(x, y, "bytes", VIEWS_HEIGHT, 3)}
${path(signal.available, data.times, "views-signal", "memory.available, the signal every decision uses")}
${path(v.kubelet, v.readAt, "views-kubelet", "the kubelet's formula: capacity − (usage − inactive_file), read after the step")}
${path(v.kernelAvailable, v.readAt, "views-kernel", "MemAvailable of /proc/meminfo (machine-wide)")}
${path(v.withKernelMemory, v.readAt, "views-kmem", "capacity − (working set + kernel memory)")}
</svg>`;
}

/** Height of the memory pressure strip under a memory signal's chart. */
const PRESSURE_HEIGHT = 110;

/**
 * The memory pressure (PSI some and full avg10) beside a memory signal, on the same time axis, with
 * its peaks in words. Drawn apart from the signal, and said to be what it is: no eviction decision
 * reads it (the kubelet's eviction manager does not).
 */
function pressureStrip(data: ReportData, p: PressureSeries, x: ScaleTime<number, number>): string {
  const top = Math.max(maxOf(p.some), maxOf(p.full), 1);
  const y = yScale(top, "%", PRESSURE_HEIGHT, 2);
  const path = (values: readonly number[], cls: string): string => {
    const d = line<number>()
      .defined((i) => !Number.isNaN(values[i] ?? Number.NaN))
      .x((i) => r1(x(new Date(data.times[i] ?? 0))))
      .y((i) => r1(y(values[i] ?? 0)))(drawIndexes(values));
    return d === null ? "" : `<path class="${cls}" d="${d}"/>`;
  };
  const peak = (values: readonly number[]): string =>
    values.some((v) => !Number.isNaN(v)) ? amount(maxOf(values), "%") : "not reported";
  return `
<p class="psi-caption">PSI (not used for eviction): ${esc(p.of)} memory pressure, avg10 · peak some ${esc(peak(p.some))}, full ${esc(peak(p.full))} <span class="k psi-some"></span>some <span class="k psi-full"></span>full</p>
<svg class="psi" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${PRESSURE_HEIGHT}" viewBox="0 0 ${WIDTH} ${PRESSURE_HEIGHT}" role="img" aria-label="${esc(p.of)} memory pressure over time">
${axes(x, y, "%", PRESSURE_HEIGHT, 2)}
${path(p.some, "psi-some")}
${path(p.full, "psi-full")}
</svg>`;
}

function usageChart(data: ReportData, x: ScaleTime<number, number>): string {
  const u = data.podUsage;
  if (u === undefined || u.pods.length === 0) return "";
  const n = data.times.length;
  const keys = u.pods.map((_, k) => k);
  const rows = data.times.map((_, i) =>
    keys.map((k) => {
      const v = u.pods[k]?.values[i] ?? Number.NaN;
      return Number.isNaN(v) ? 0 : v;
    }),
  );
  const stacked = stack<number[], number>()
    .keys(keys)
    .value((row, k) => row[k] ?? 0)
    .order(stackOrderNone)
    .offset(stackOffsetNone)(rows);
  let top = 1;
  for (const layer of stacked) for (const p of layer) top = Math.max(top, p[1]);
  const height = 260;
  const y = yScale(top, u.unit, height, Y_TICKS);
  const idx = drawIndexesOf(n, (i) => rows[i]?.reduce((a, b) => a + b, 0) ?? 0);
  const layers = stacked.map((layer, k) => {
    const d = area<number>()
      .x((i) => r1(x(new Date(data.times[i] ?? 0))))
      .y0((i) => r1(y(layer[i]?.[0] ?? 0)))
      .y1((i) => r1(y(layer[i]?.[1] ?? 0)))(idx);
    const pod = u.pods[k];
    return `<path class="layer" fill="${PALETTE[k % PALETTE.length]}" d="${d ?? ""}"><title>${esc(pod?.pod ?? "")}</title></path>`;
  });
  // Numbered as the decision cards are: a name per marker would not fit where evictions crowd.
  const marks = data.evictions.map((e, k) => {
    const ex = x(new Date(data.times[e.step] ?? 0));
    return `<g class="evict"><line x1="${f(ex)}" x2="${f(ex)}" y1="${MARGIN.top}" y2="${height - MARGIN.bottom}"/><text x="${f(ex + 3)}" y="${MARGIN.top + 8}">${k + 1}</text><title>#${k + 1}: evicted ${esc(e.record.pod)}</title></g>`;
  });
  const legend = u.pods
    .map(
      (p, k) =>
        `<span class="sw" style="background:${PALETTE[k % PALETTE.length]}"></span>${esc(p.pod)}${p.evictedAt === undefined ? "" : " <b>(evicted)</b>"}`,
    )
    .join(" ");
  const what =
    u.unit === "processes"
      ? "process count"
      : u.signal.startsWith("memory") || u.signal.startsWith("allocatable")
        ? "working set"
        : `${u.unit} used`;
  return `<h2 id="pods">Pods</h2>
<figure class="chart usage" data-signal="${esc(u.signal)}">
<figcaption>${esc(what)} per pod, stacked: what ranked them for ${esc(u.signal)}</figcaption>
<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="usage per pod over time">
${axes(x, y, u.unit, height)}
${layers.join("\n")}
${marks.join("\n")}
</svg><p class="legend">${legend}</p></figure>`;
}

function card(data: ReportData, e: ReportEviction, number: number): string {
  const r = e.record;
  const annotations = Object.entries(r.annotations);
  return `<section class="card" id="eviction-${number}">
<h3>#${number} · ${esc(iso(data.times[e.step] ?? 0))} · evicted <code>${esc(r.pod)}</code> for ${esc(r.signal)}</h3>
<p class="msg">${esc(r.message)}</p>
<p>grace period requested ${r.gracePeriodSeconds} s, effective ${r.effectiveGracePeriodSeconds} s · ${esc(r.kind)}${r.killFailed ? " · <b>the kill failed</b>" : ""}</p>
${annotations.length === 0 ? "" : `<table class="ann">${annotations.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${esc(v)}</td></tr>`).join("")}</table>`}
${
  e.ranking.length === 0
    ? ""
    : `<table class="rank"><thead><tr><th>#</th><th>pod</th><th>why this place</th></tr></thead><tbody>
${e.ranking.map((p) => `<tr class="${p.pod === r.pod ? "picked" : ""}"><td>${p.place}</td><td>${esc(p.pod)}</td><td>${esc(p.reason)}</td></tr>`).join("\n")}
</tbody></table>${e.rankedPods > e.ranking.length ? `<p class="dim">… and ${e.rankedPods - e.ranking.length} more pods ranked after them.</p>` : ""}`
}
</section>`;
}

function refusalList(data: ReportData): string {
  if (data.refusals.length === 0) return "";
  const shown = data.refusals.slice(0, 50);
  return `<h3>Admissions refused</h3><ul>${shown
    .map((r) => `<li>${esc(iso(data.times[r.step] ?? 0))} <code>${esc(r.pod)}</code>: ${esc(r.message)}</li>`)
    .join(
      "",
    )}</ul>${data.refusals.length > shown.length ? `<p class="dim">… ${data.refusals.length - shown.length} more.</p>` : ""}`;
}

function configSection(data: ReportData): string {
  const rows = data.thresholds
    .map(
      (t) =>
        `<tr><td>${esc(t.signal)}</td><td>${esc(t.value)}</td><td>${t.hard ? "hard" : `soft, ${duration(t.gracePeriodMs)}`}</td><td>${esc(t.minReclaim)}</td><td>${esc(t.origin)}</td></tr>`,
    )
    .join("\n");
  return `<table class="cfg"><thead><tr><th>signal</th><th>threshold</th><th>kind</th><th>minimum reclaim</th><th>from</th></tr></thead><tbody>
${rows}
</tbody></table>
<p>evictionMaxPodGracePeriod ${data.config.evictionMaxPodGracePeriod} s · evictionPressureTransitionPeriod ${duration(data.config.pressureTransitionPeriodMs)} · filesystems ${esc(data.config.layout)}</p>
${data.warnings.length === 0 ? "<p>No warnings about the configuration or the scenario.</p>" : `<h3>Warnings</h3><ul class="warn">${data.warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul>`}${figureSourcesHtml(data.figureSources)}`;
}

/** An imported trace's figures: which are exact, approximate or missing (never invented), and from what. */
function figureSourcesHtml(figures: Readonly<Record<string, string>> | undefined): string {
  if (figures === undefined) return "";
  const rows = Object.entries(figures)
    .map(([field, text]) => {
      const colon = text.indexOf(": ");
      const kind = colon < 0 ? text : text.slice(0, colon);
      const from = colon < 0 ? "" : text.slice(colon + 2);
      return `<tr><td>${esc(field)}</td><td class="figure-${esc(kind)}">${esc(kind)}</td><td>${esc(from)}</td></tr>`;
    })
    .join("");
  return `<h3>Where the figures come from</h3>
<p>This trace was imported: a missing figure is left out of the replay (that signal is never seen), an approximate one comes from another exporter than the kubelet's own.</p>
<table><thead><tr><th>signal or field</th><th>figures</th><th>from</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** How many y ticks a chart asks for (the strips under it ask for fewer). */
const Y_TICKS = 4;

/**
 * Half the width of an x tick label (`12:34:56` at 11px): a label centred closer than this to the
 * SVG's right edge is cut off, so it ends at its tick instead.
 */
const X_LABEL_HALF_WIDTH = 26;

/**
 * The y scale of a chart, from 0 to a round value above `top`. A byte axis ends on a multiple of a
 * power-of-two step ({@link binaryStep}), so its ticks read round in the binary units they are
 * printed in (a 500Mi threshold sits just under 512 MiB, not among ticks of "477 MiB"); any other
 * axis (counts, percentages) ends on d3's round decimal value.
 */
function yScale(top: number, unit: string, height: number, ticks: number): ScaleLinear<number, number> {
  const y = scaleLinear()
    .domain([0, top])
    .range([height - MARGIN.bottom, MARGIN.top]);
  if (unit !== "bytes") return y.nice();
  const step = binaryStep(top, ticks);
  return y.domain([0, Math.ceil(top / step) * step]);
}

/** The smallest power of two (in bytes, at least one) that cuts [0, top] into at most `count` steps. */
export function binaryStep(top: number, count: number): number {
  let step = 1;
  while (step * count < top) step *= 2;
  return step;
}

/**
 * A byte axis's ticks: every multiple of the binary step up to the scale's end. The step is at least
 * a quarter of the top, so past 1 GiB it is at least 512 MiB and a label is whole or a half.
 */
export function binaryTicks(top: number, count: number): number[] {
  const step = binaryStep(top, count);
  return Array.from({ length: Math.floor(top / step) + 1 }, (_, i) => i * step);
}

/** A byte tick's label: `512 MiB`, `1 GiB`, `1.5 GiB` (exact, so no trailing `.0`). */
export function byteTickLabel(v: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let k = 0;
  let x = v;
  while (Math.abs(x) >= 1024 && k < units.length - 1) {
    x /= 1024;
    k++;
  }
  return `${Number(x.toFixed(2))} ${units[k]}`;
}

function axes(
  x: ScaleTime<number, number>,
  y: ScaleLinear<number, number>,
  unit: string,
  height = CHART_HEIGHT,
  yTicks = Y_TICKS,
): string {
  const base = height - MARGIN.bottom;
  const xt = x.ticks(8).map((d) => {
    const at = x(d);
    // The last label near the right edge ends at its tick: centred, it would run out of the SVG.
    const anchor = at + X_LABEL_HALF_WIDTH > WIDTH ? "end" : "middle";
    return `<g class="tick"><line x1="${f(at)}" x2="${f(at)}" y1="${base}" y2="${base + 4}"/><text x="${f(at)}" y="${base + 16}" text-anchor="${anchor}">${esc(clock(d))}</text></g>`;
  });
  const values = unit === "bytes" ? binaryTicks(y.domain()[1] ?? 0, yTicks) : y.ticks(yTicks);
  const yt = values.map(
    (v) =>
      `<g class="tick"><line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${f(y(v))}" y2="${f(y(v))}"/><text x="${MARGIN.left - 6}" y="${f(y(v) + 4)}" text-anchor="end">${esc(unit === "bytes" ? byteTickLabel(v) : amount(v, unit))}</text></g>`,
  );
  return `<g class="axis">${yt.join("")}${xt.join("")}<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${base}" y2="${base}"/></g>`;
}

/** Step indexes to draw: all of them, or per bucket the lowest and the highest value in step order. */
function drawIndexes(values: readonly number[]): number[] {
  return drawIndexesOf(values.length, (i) => values[i] ?? Number.NaN);
}

function drawIndexesOf(n: number, value: (i: number) => number): number[] {
  if (n <= MAX_POINTS) return Array.from({ length: n }, (_, i) => i);
  const buckets = Math.floor(MAX_POINTS / 2);
  const out: number[] = [];
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * n) / buckets);
    const to = Math.floor(((b + 1) * n) / buckets);
    let lo = from;
    let hi = from;
    for (let i = from; i < to; i++) {
      const v = value(i);
      if (Number.isNaN(v)) continue;
      if (!(v >= value(lo))) lo = i;
      if (!(v <= value(hi))) hi = i;
    }
    if (lo === hi) out.push(lo);
    else out.push(Math.min(lo, hi), Math.max(lo, hi));
  }
  if (out[out.length - 1] !== n - 1) out.push(n - 1);
  return out;
}

function spanX(data: ReportData, sp: StepSpan, x: ScaleTime<number, number>): [number, number] {
  const a = x(new Date(data.times[sp.from] ?? 0));
  // A span lasts until the step after its last one.
  const end = data.times[sp.to + 1] ?? data.times[sp.to] ?? 0;
  return [a, x(new Date(end))];
}

function spanMs(data: ReportData, spans: readonly StepSpan[]): number {
  let ms = 0;
  for (const sp of spans)
    ms += (data.times[sp.to + 1] ?? data.times[sp.to] ?? 0) - (data.times[sp.from] ?? 0);
  return ms;
}

/** The lowest value that is not NaN (NaN when there is none). */
function minOf(values: readonly number[]): number {
  let m = Number.NaN;
  for (const v of values) if (!Number.isNaN(v) && !(v >= m)) m = v;
  return m;
}

function maxOf(values: readonly number[]): number {
  let m = 0;
  for (const v of values) if (v > m) m = v;
  return m;
}

export function amount(v: number, unit: string): string {
  // PSI averages: the kernel gives two decimals.
  if (unit === "%") return `${Number(v.toFixed(2))}%`;
  if (unit !== "bytes")
    return v >= 1e6 ? `${(v / 1e6).toFixed(1)}M` : v >= 1e3 ? `${(v / 1e3).toFixed(0)}k` : String(v);
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let k = 0;
  let x = v;
  while (Math.abs(x) >= 1024 && k < units.length - 1) {
    x /= 1024;
    k++;
  }
  return `${x >= 100 || k === 0 ? x.toFixed(0) : x.toFixed(1)} ${units[k]}`;
}

export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m${s % 60 === 0 ? "" : `${s % 60}s`}`;
  return `${Math.floor(m / 60)}h${m % 60 === 0 ? "" : `${m % 60}m`}`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

function clock(d: Date): string {
  return d.toISOString().slice(11, 19);
}

/** Coordinates to a tenth of a pixel: a shorter file, the same picture. */
function r1(v: number): number {
  return Math.round(v * 10) / 10;
}

function f(v: number): string {
  return (Math.round(v * 10) / 10).toString();
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export const CSS = `
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1080px;color:#1d2433;background:#fff}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #dde}h3{font-size:15px;margin:8px 0}
.sub,.dim,.note{color:#667}.note{font-size:12px}
.verdict{display:flex;gap:8px;flex-wrap:wrap}.cell{border:1px solid #dde;border-radius:6px;padding:8px 12px;min-width:150px}
.cell .k{font-size:12px;color:#667}.cell .v{font-size:16px;font-weight:600}.cell.bad{border-color:#e15759;background:#fdf0f0}.cell.warn{border-color:#f2b233;background:#fff8e8}.cell.ok{border-color:#59a14f;background:#f1f8ef}
figure.chart{margin:8px 0 16px}figcaption{font-weight:600;margin-bottom:2px}
svg{display:block;max-width:100%;height:auto}
.axis line{stroke:#99a}.axis .grid{stroke:#eef}.axis text,.tick text{font-size:11px;fill:#556}
.avail{fill:none;stroke:#1f5fbf;stroke-width:1.6}.hard{fill:none;stroke:#d62728;stroke-width:1.4}.soft{fill:none;stroke:#f28e2b;stroke-width:1.4;stroke-dasharray:6 3}
.reclaim{fill:#d62728;fill-opacity:.12;stroke:none}.grace{fill:#f28e2b;fill-opacity:.22}.cond{fill:#9467bd;fill-opacity:.13}
.evict line{stroke:#d62728;stroke-width:1.2;stroke-dasharray:3 2}.evict path{fill:#d62728}.evict text{font-size:11px;fill:#a01b1b}
.refuse{fill:#555}
.psi-caption{font-size:12px;color:#556;margin:2px 0 0}.psi-some{fill:none;stroke:#8c6bb1;stroke-width:1.3}.psi-full{fill:none;stroke:#6a3d9a;stroke-width:1.3;stroke-dasharray:4 2}
.psi-caption .k{display:inline-block;width:18px;height:3px;margin:0 4px 0 10px;vertical-align:middle}.k.psi-some{background:#8c6bb1}.k.psi-full{background:#6a3d9a}
.views-caption{font-size:12px;color:#556;margin:2px 0 0}.views-caption .k{display:inline-block;width:18px;height:3px;margin:0 4px 0 10px;vertical-align:middle}
.views-signal{fill:none;stroke:#1f5fbf;stroke-width:1;stroke-opacity:.45}.views-kubelet{fill:none;stroke:#2ca02c;stroke-width:1.3}.views-kernel{fill:none;stroke:#17becf;stroke-width:1.3;stroke-dasharray:5 2}.views-kmem{fill:none;stroke:#8c564b;stroke-width:1.3;stroke-dasharray:2 2}
.k.views-signal{background:#1f5fbf;opacity:.45}.k.views-kubelet{background:#2ca02c}.k.views-kernel{background:#17becf}.k.views-kmem{background:#8c564b}
.layer{stroke:#fff;stroke-width:.3}
.legend{font-size:12px;color:#445}.legend .k{display:inline-block;width:18px;height:10px;margin:0 4px 0 12px;vertical-align:middle}
.k.avail{background:#1f5fbf}.k.hard{background:#d62728}.k.soft{background:#f28e2b}.k.reclaim{background:#f6d5d5}.k.grace{background:#fbdcbc}.k.cond{background:#e6dcf0}.k.evict{background:#d62728;width:3px}.k.refuse{background:#555;width:8px}
.sw{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px;vertical-align:middle}
.card{border:1px solid #dde;border-radius:6px;padding:10px 14px;margin:10px 0}.msg{font-family:ui-monospace,monospace;font-size:12px;background:#f6f7fa;padding:6px}
table{border-collapse:collapse;font-size:12px;margin:6px 0}th,td{border-bottom:1px solid #eef;padding:3px 8px;text-align:left;vertical-align:top}
tr.picked{background:#fdecea;font-weight:600}ul.warn li{color:#8a5a00}
`;
