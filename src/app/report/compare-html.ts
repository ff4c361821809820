/**
 * The fleet comparison as one self-contained HTML page, in the replay report's look (its CSS):
 * the recommendation and its objective, one row per configuration (evictions, OOM-risk moments,
 * headroom, time under pressure, refused admissions, divergences, allocatable memory), a chart of
 * evictions and OOM-risk moments per configuration, the worst nodes, and the node × configuration
 * matrix whose cells link to their per-node replay reports where those were written (elsewhere the
 * cell's title gives the command that writes one). No script, nothing fetched.
 */
import { scaleLinear } from "d3-scale";
import type { Signal } from "../../core/model.js";
import { SIGNALS } from "../../core/signals.js";
import { count } from "../plural.js";
import { cellKey, type ConfigRow, type FleetComparison } from "../compare/fleet-comparison.js";
import { amount, CSS, duration, esc } from "./report-html.js";

/** Per-node report pages, by {@link cellKey}: a link relative to the page. */
export type ReportLinks = ReadonlyMap<string, string>;

const EXTRA_CSS = `
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.bars rect.ev{fill:#1f5fbf}.bars rect.oom{fill:#d62728}.bars text{font-size:11px;fill:#334}
td.m{min-width:70px}td.m a{text-decoration:none}td.m.bad{background:#fdf0f0}td.m.warn{background:#fff8e8}td.m.ok{background:#f1f8ef}
`;

function headroomCell(row: ConfigRow, signal: Signal): string {
  const h = row.headroom[signal];
  if (h === undefined) return `<td class="num dim">—</td>`;
  const unit = SIGNALS[signal].unit;
  return `<td class="num" title="${count(h.samples, "sample")}">${esc(amount(h.min, unit))} / ${esc(amount(h.p1, unit))}</td>`;
}

function pressureText(row: ConfigRow): string {
  const parts = Object.entries(row.pressureMs)
    .filter(([, ms]) => ms > 0)
    .map(([c, ms]) => `${c} ${duration(ms)}`);
  return parts.length === 0 ? "none" : parts.join(", ");
}

function configTable(c: FleetComparison): string {
  const picked = c.recommendation?.config;
  const signals = [...new Set(c.configs.flatMap((r) => Object.keys(r.headroom)))] as Signal[];
  const head = `<tr><th>configuration</th><th class="num">nodes</th><th class="num">evictions (pods)</th><th>by signal</th><th class="num">OOM-risk steps (nodes)</th>${signals
    .map((s) => `<th class="num">${esc(s)}<br><span class="dim">min / p1</span></th>`)
    .join(
      "",
    )}<th>time under pressure</th><th class="num">refused admissions</th><th class="num">diverged pods (steps)</th><th class="num">allocatable memory</th></tr>`;
  const rows = c.configs.map((r) => {
    const bySignal = Object.entries(r.bySignal)
      .map(([s, n]) => `${esc(s)} ${n}`)
      .join(", ");
    return `<tr${r.config === picked ? ' class="picked"' : ""}><td>${esc(r.config)}${r.config === picked ? " ★" : ""}${r.failed > 0 ? ` <span class="dim">(${r.failed} failed)</span>` : ""}</td><td class="num">${r.nodes}</td><td class="num">${r.evictions} (${r.podsEvicted})</td><td>${bySignal || '<span class="dim">—</span>'}</td><td class="num">${r.oomRiskSteps} (${r.oomRiskNodes})</td>${signals
      .map((s) => headroomCell(r, s))
      .join(
        "",
      )}<td>${esc(pressureText(r))}</td><td class="num">${r.refusedAdmissions}</td><td class="num">${r.divergedPods} (${r.divergedSteps})</td><td class="num">${r.allocatableBytes === null ? "—" : esc(amount(r.allocatableBytes, "bytes"))}</td></tr>`;
  });
  return `<table>${head}${rows.join("\n")}</table>
<p class="note">Headroom: what each signal had available, the least seen on any node and the 1st percentile over every step of every node (to within 1.1%). Allocatable memory: capacity less kubeReserved and systemReserved memory and the hard memory.available threshold, summed over the nodes.</p>`;
}

/** Evictions (blue) and OOM-risk steps (red) per configuration, as horizontal bars. */
function barChart(c: FleetComparison): string {
  const rows = c.configs;
  if (rows.length === 0) return "";
  const width = 760;
  const left = 260;
  const rowH = 26;
  const max = Math.max(1, ...rows.map((r) => Math.max(r.evictions, r.oomRiskSteps)));
  const x = scaleLinear()
    .domain([0, max])
    .range([0, width - left - 60]);
  const bars = rows
    .map((r, i) => {
      const y = 8 + i * rowH;
      return `<text x="${left - 8}" y="${y + 12}" text-anchor="end">${esc(r.config.length > 40 ? `${r.config.slice(0, 39)}…` : r.config)}</text>
<rect class="ev" x="${left}" y="${y}" width="${x(r.evictions).toFixed(1)}" height="9"></rect><text x="${(left + x(r.evictions) + 4).toFixed(1)}" y="${y + 8}">${r.evictions}</text>
<rect class="oom" x="${left}" y="${y + 11}" width="${x(r.oomRiskSteps).toFixed(1)}" height="9"></rect><text x="${(left + x(r.oomRiskSteps) + 4).toFixed(1)}" y="${y + 19}">${r.oomRiskSteps}</text>`;
    })
    .join("\n");
  return `<figure class="chart"><figcaption>Evictions and OOM-risk steps per configuration</figcaption>
<svg class="bars" viewBox="0 0 ${width} ${rows.length * rowH + 12}" width="${width}" role="img">${bars}</svg>
<p class="legend"><span class="k avail"></span>evictions <span class="k hard"></span>OOM-risk steps</p></figure>`;
}

function matrix(
  c: FleetComparison,
  links: ReportLinks,
  command: (trace: string, config: string) => string,
): string {
  const byCell = new Map(c.cells.map((cell) => [cellKey(cell.trace, cell.config), cell]));
  const head = `<tr><th>node (trace)</th>${c.configs.map((r) => `<th class="num">${esc(r.config)}</th>`).join("")}</tr>`;
  const rows = c.traces.map((trace) => {
    const first = c.cells.find((cell) => cell.trace === trace);
    const cells = c.configs.map((r) => {
      const cell = byCell.get(cellKey(trace, r.config));
      if (cell === undefined) return `<td class="m dim">—</td>`;
      if (!cell.ok) return `<td class="m bad" title="${esc(cell.problems.join("\n"))}">failed</td>`;
      const f = cell.figures;
      const cls = f.oomRiskSteps > 0 ? "bad" : f.evictions > 0 ? "warn" : "ok";
      const text = `${f.evictions} ev${f.oomRiskSteps > 0 ? ` · ${f.oomRiskSteps} OOM-risk` : ""}${f.divergedPods > 0 ? ` · ${f.divergedPods} div` : ""}`;
      const link = links.get(cellKey(trace, r.config));
      return link !== undefined
        ? `<td class="m num ${cls}"><a href="${esc(link)}">${esc(text)}</a></td>`
        : `<td class="m num ${cls}" title="${esc(`its report: ${command(trace, r.config)}`)}">${esc(text)}</td>`;
    });
    return `<tr><td>${esc(first?.node ?? trace)}<br><span class="dim">${esc(trace)}</span></td>${cells.join("")}</tr>`;
  });
  return `<table>${head}${rows.join("\n")}</table>`;
}

function worstNodes(c: FleetComparison): string {
  const items = c.configs
    .filter((r) => r.worst.length > 0)
    .map(
      (r) =>
        `<li><b>${esc(r.config)}</b>: ${r.worst
          .map(
            (w) =>
              `${esc(w.node)} <span class="dim">${esc(w.trace)}</span> (${count(w.evictions, "eviction")}, ${count(w.oomRiskSteps, "OOM-risk step")}${w.minMemoryAvailable === null ? "" : `, memory.available down to ${esc(amount(w.minMemoryAvailable, "bytes"))}`})`,
          )
          .join("; ")}</li>`,
    );
  return items.length === 0
    ? "<p>No node was evicted from or came near the OOM killer.</p>"
    : `<ul>${items.join("\n")}</ul>`;
}

/** The page; `links` are the per-node reports written, `command` how to write one that was not. */
export function renderCompareHtml(
  c: FleetComparison,
  links: ReportLinks,
  command: (trace: string, config: string) => string,
  generatedBy: string,
): string {
  const rec = c.recommendation;
  const verdict =
    rec === null
      ? `<div class="verdict"><div class="cell bad"><div class="k">recommended</div><div class="v">none (no trace replayed)</div></div></div>`
      : `<div class="verdict"><div class="cell ${rec.constraintMet ? "ok" : "bad"}"><div class="k">recommended</div><div class="v">${esc(rec.config)}</div></div></div>
<p>${esc(rec.reason)}.</p>`;
  const failures =
    c.failures.length === 0
      ? ""
      : `<h2 id="failures">Cells that failed</h2><ul class="warn">${c.failures
          .map(
            (f) =>
              `<li>${esc(f.trace)} under ${esc(f.config)}: ${esc(f.problems.slice(0, 3).join("; "))}</li>`,
          )
          .join("\n")}</ul>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>evictd fleet comparison</title>
<style>${CSS}${EXTRA_CSS}</style></head>
<body>
<h1>evictd fleet comparison</h1>
<p class="sub">${count(c.traces.length, "trace")} × ${count(c.configs.length, "configuration")} · ${c.whatIf ? "what-if (evicted pods leave the later samples)" : "open loop (samples as recorded)"} · ${esc(generatedBy)}</p>
<p class="note">Objective: ${esc(c.objectiveText)}. An OOM-risk moment is a step where memory.available was at or below 100 MiB or 5% of the node's memory, whichever is less.</p>
${verdict}
<h2 id="configurations">Configurations</h2>
${configTable(c)}
${barChart(c)}
<h2 id="worst">Worst nodes</h2>
${worstNodes(c)}
<h2 id="nodes">Nodes × configurations</h2>
<p class="note">Evictions, OOM-risk steps and diverged pods of each node under each configuration; a linked cell opens that node's replay report.</p>
${matrix(c, links, command)}
${failures}
</body></html>
`;
}
