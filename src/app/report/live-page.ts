/**
 * The daemon's page at `/`: what /status says, for a person: the pressure conditions, who would be
 * evicted next and why, every signal against its thresholds, the last minutes as the replay
 * report's charts, and the recent evictions. It reloads itself every few seconds (a meta refresh:
 * no script, nothing fetched but the page). Pure: the status view and the history in, HTML out.
 */
import type { NodeMemoryViewsView } from "../node-view/node-memory-views-view.js";
import type { PodMemoryView, StatusView } from "../node-view/status-view.js";
import type { Signal, StarvedResource } from "../../core/model.js";
import { SIGNALS } from "../../core/signals.js";
import type { ReportData } from "./report-data.js";
import { CSS, esc, renderSignalCharts, SIGNAL_LEGEND } from "./report-html.js";
import { LIVE_WINDOW_MS } from "./live-page-window.js";
import { thresholdText } from "./threshold-text.js";

/** How often the page reloads itself. */
export const LIVE_REFRESH_SECONDS = 2;

export function renderLivePage(view: StatusView, history: ReportData | undefined): string {
  const conditions = view.conditions
    .map(
      (c) =>
        `<span class="chip ${c.status === "True" ? "on" : "off"}">${esc(c.type)} ${esc(c.status)}</span>`,
    )
    .join(" ");
  const sync = view.lastSync;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="${LIVE_REFRESH_SECONDS}">
<title>evictd · ${esc(view.node.name)}</title>
<style>${CSS}${LIVE_CSS}</style></head>
<body>
<h1>evictd · ${esc(view.node.name)}</h1>
<p class="sub">updated <time id="updated">${esc(view.node.now)}</time> · up since ${esc(view.node.startedAt)} · reloads every ${LIVE_REFRESH_SECONDS} s · <a href="/status?pretty">/status</a> · <a href="/metrics">/metrics</a></p>
<p>${conditions}</p>
${sync === null ? "<p>No synchronize has run yet.</p>" : `<p class="dim">last synchronize ${esc(sync.time)}: ${esc(sync.outcome)}${sync.actedOn === null ? "" : ` (acting on ${esc(sync.actedOn)})`}</p>`}
${nextVictim(view)}
${podMemory(view)}
<h2>Signals now</h2>
${signalTable(view)}
<h2>The last ${LIVE_WINDOW_MS / 60_000} minutes</h2>
${history === undefined || history.times.length === 0 ? "<p>No step yet.</p>" : `${SIGNAL_LEGEND}\n${renderSignalCharts(history)}`}
<h2>Recent evictions</h2>
${recentEvictions(view)}
${view.capabilities.length === 0 ? "" : `<h2>Capabilities</h2><ul>${view.capabilities.map((c) => `<li>${esc(c)}</li>`).join("")}</ul>`}
</body></html>
`;
}

/**
 * How close the ranked signal is to an eviction: a threshold met (or the last synchronize acting on
 * it), a soft threshold crossed but still in its grace period, or no threshold met at all (the
 * ranking is then only what would happen: the order for memory when nothing presses).
 */
export type NextVictimUrgency = "pressing" | "waiting" | "calm";

export function nextVictimUrgency(view: StatusView, signal: Signal): NextVictimUrgency {
  if (view.lastSync?.actedOn === signal) return "pressing";
  const states = view.signals.find((s) => s.signal === signal)?.thresholds.map((t) => t.state) ?? [];
  if (states.includes("met")) return "pressing";
  return states.some((s) => s !== "ok") ? "waiting" : "calm";
}

const RUNS_OUT: Readonly<Record<StarvedResource, string>> = {
  memory: "memory runs out",
  "ephemeral-storage": "disk space runs out",
  inodes: "inodes run out",
  pids: "process IDs run out",
};

function nextVictim(view: StatusView): string {
  const r = view.ranking;
  if (r === null)
    return `<section class="next calm" id="next"><h2>Next to go</h2><p>No ranking yet.</p></section>`;
  const rows = r.order.slice(0, 8);
  const urgency = nextVictimUrgency(view, r.signal);
  const heading =
    urgency === "pressing"
      ? `Next to go, for ${esc(r.signal)}`
      : urgency === "waiting"
        ? `Next to go if ${esc(r.signal)} stays below its threshold past the grace period`
        : `Next to go if ${RUNS_OUT[SIGNALS[r.signal].resource]}`;
  const note =
    urgency === "calm"
      ? `\n<p class="dim">No threshold is met: nothing would be evicted now. This is the order for ${esc(r.signal)}.</p>`
      : "";
  return `<section class="next ${urgency}" id="next"><h2>${heading}: <code id="next-pod">${esc(r.next ?? "none (only critical pods)")}</code></h2>${note}
<table class="rank"><thead><tr><th>#</th><th>pod</th><th>why this place</th></tr></thead><tbody>
${rows.map((p) => `<tr class="${p.pod === r.next ? "picked" : ""}"><td>${p.place}</td><td>${esc(p.pod)}</td><td>${esc(p.reason)}</td></tr>`).join("\n")}
</tbody></table>${r.order.length > rows.length ? `<p class="dim">… and ${r.order.length - rows.length} more.</p>` : ""}</section>`;
}

/** /status's `memory` of a pod entry, when it has one. */
function memoryOf(pod: Readonly<Record<string, unknown>>): PodMemoryView | undefined {
  const m = pod["memory"];
  return typeof m === "object" && m !== null ? (m as PodMemoryView) : undefined;
}

/**
 * Every pod's working set as /status carries it: the time it was read, or, when the last sample did
 * not read it (a memory wake reads most pods' usage alone), how much older than that read it is.
 */
function podMemory(view: StatusView): string {
  if (view.pods.length === 0) return "";
  const rows = view.pods.map((p) => {
    const m = memoryOf(p);
    const read =
      m === undefined
        ? `<span class="dim">not read yet</span>`
        : m.fromLastRead
          ? `read ${esc(m.time ?? "")}`
          : `<span class="stale">${esc(m.asOf ?? "")}</span>`;
    return `<tr><td>${esc(field(p, "pod"))}</td><td>${esc(field(p, "phase"))}</td><td class="num">${esc(m?.workingSet ?? "–")}</td><td>${read}</td></tr>`;
  });
  return `<h2>Pods' memory</h2>
<table class="pods" id="pod-memory"><thead><tr><th>pod</th><th>phase</th><th>working set</th><th>read</th></tr></thead><tbody>
${rows.join("\n")}
</tbody></table>`;
}

function signalTable(view: StatusView): string {
  if (view.signals.length === 0) return "<p>No signal observed yet.</p>";
  const rows = view.signals.map((s) => {
    const thresholds = s.thresholds
      .map(
        (t) =>
          `<span class="chip ${t.state === "ok" ? "off" : "on"}">${esc(t.type)} ${esc(thresholdText(s.signal, t))}: ${esc(t.state)}</span>`,
      )
      .join(" ");
    return `<tr><td>${esc(s.signal)}</td><td class="num">${esc(s.available ?? "–")}</td><td class="num">${esc(s.capacity ?? "–")}</td><td>${thresholds}</td></tr>`;
  });
  const additions = view.signals.find((s) => s.signal === "memory.available")?.evictdAdditions;
  return `<table class="signals" id="signals"><thead><tr><th>signal</th><th>available</th><th>capacity</th><th>thresholds</th></tr></thead><tbody>
${rows.join("\n")}
</tbody></table>${additions === undefined ? "" : `\n${memoryViews(additions)}`}`;
}

/** memory.available three ways, under the signals, as /status's `evictdAdditions` says it. */
function memoryViews(a: NodeMemoryViewsView): string {
  const parts = [`kubelet's formula ${esc(a.kubelet.available)}`];
  if (a.kernelAvailable !== undefined)
    parts.push(`kernel's MemAvailable ${esc(a.kernelAvailable.available)}`);
  const k = a.withKernelMemory;
  if (k !== undefined)
    parts.push(
      `with kernel memory ${esc(k.available)} (${esc(k.kernelMemory)} of kernel memory${k.alreadyInKubeletFigure ? ", already in the kubelet's figure" : ""})`,
    );
  return `<p class="dim" id="memory-views">memory.available three ways (${esc(a.note)}), read ${esc(a.time)}: ${parts.join(" · ")}</p>`;
}

function recentEvictions(view: StatusView): string {
  if (view.recentEvictions.length === 0) return "<p>None since the start.</p>";
  return `<ul>${view.recentEvictions
    .map(
      (e) =>
        `<li>${esc(field(e, "time"))} <code>${esc(field(e, "pod"))}</code> (${esc(field(e, "signal"))}): ${esc(field(e, "message"))}</li>`,
    )
    .join("")}</ul>`;
}

/** A text field of a /status eviction or pod entry (they are typed as records there). */
function field(e: Readonly<Record<string, unknown>>, name: string): string {
  const v = e[name];
  return typeof v === "string" ? v : "";
}

const LIVE_CSS = `
.chip{display:inline-block;border-radius:10px;padding:1px 8px;font-size:12px;border:1px solid #ccd}
.chip.on{background:#fdecea;border-color:#e15759;color:#a01b1b}.chip.off{background:#f1f8ef;border-color:#8cc67f}
.stale{color:#a05a00}
.next{border:1px solid #dde;border-radius:6px;padding:4px 14px;margin:12px 0}.next.pressing{border-color:#e15759;background:#fdf0f0}.next.waiting{border-color:#f2b233;background:#fff8e8}
.next.calm tr.picked{background:#f3f4f8}.next.waiting tr.picked{background:#fdf0d8}.num{text-align:right;font-variant-numeric:tabular-nums}
`;
