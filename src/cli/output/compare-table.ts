/**
 * The fleet comparison for people (a table, one row per configuration, the recommendation below)
 * and for a threshold search (Katib's metrics collector reads `name=value` lines from stdout).
 */
import { amount, duration } from "../../app/report/report-html.js";
import type { ConfigRow, FleetComparison } from "../../app/compare/fleet-comparison.js";
import { basename } from "node:path";
import { terminalSafe } from "./terminal-text.js";
import { count } from "../../app/plural.js";

function pad(cells: readonly string[][]): string {
  const widths = cells[0]?.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length))) ?? [];
  return cells
    .map((r) =>
      r
        .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const headroom = (r: ConfigRow): string => {
  const h = r.headroom["memory.available"];
  return h === undefined ? "—" : `${amount(h.min, "bytes")} / ${amount(h.p1, "bytes")}`;
};

const pressure = (r: ConfigRow): string => {
  const total = Object.values(r.pressureMs).reduce((a, b) => a + b, 0);
  return total === 0 ? "0" : duration(total);
};

/** The comparison as a table, then the recommendation, the worst nodes and the failures. */
export function compareTable(c: FleetComparison): string {
  const picked = c.recommendation?.config;
  const rows = [
    [
      "configuration",
      "nodes",
      "evictions",
      "pods",
      "OOM-risk steps",
      "memory.available min / p1",
      "under pressure",
      "refused",
      "diverged pods",
      "allocatable",
    ],
    ...c.configs.map((r) => [
      `${r.config === picked ? "★ " : "  "}${r.config}`,
      r.failed > 0 ? `${r.nodes} (+${r.failed} failed)` : String(r.nodes),
      String(r.evictions),
      String(r.podsEvicted),
      r.oomRiskSteps === 0 ? "0" : `${r.oomRiskSteps} (${count(r.oomRiskNodes, "node")})`,
      headroom(r),
      pressure(r),
      String(r.refusedAdmissions),
      r.divergedPods === 0 ? "0" : `${r.divergedPods} (${count(r.divergedSteps, "step")})`,
      r.allocatableBytes === null ? "—" : amount(r.allocatableBytes, "bytes"),
    ]),
  ];
  const lines = [
    `${count(c.traces.length, "trace")} × ${count(c.configs.length, "configuration")}, ${c.whatIf ? "what-if" : "open loop"}`,
    "",
    ...pad(rows).split("\n"),
    "",
    c.recommendation === null
      ? "recommended: none (no trace replayed)"
      : `recommended: ${c.recommendation.config}${c.recommendation.constraintMet ? "" : " (no configuration met the constraint)"}`,
    `  objective: ${c.objectiveText}`,
    ...(c.recommendation === null ? [] : [`  ${c.recommendation.reason}`]),
  ];
  const worst = c.configs.filter((r) => r.worst.length > 0);
  if (worst.length > 0) {
    lines.push("", "worst nodes:");
    for (const r of worst)
      lines.push(
        `  ${r.config}: ${r.worst.map((w) => `${w.node} [${basename(w.trace)}] (${count(w.evictions, "eviction")}, ${w.oomRiskSteps} OOM-risk)`).join(", ")}`,
      );
  }
  if (c.failures.length > 0) {
    lines.push("", "failed:");
    for (const f of c.failures)
      lines.push(`  ${f.trace} under ${f.config}: ${f.problems.slice(0, 3).join("; ")}`);
  }
  return lines.map((l) => terminalSafe(l)).join("\n") + "\n";
}

/** Katib's metric lines: one configuration's figures as `name=value`. */
export function katibLines(r: ConfigRow): string {
  const h = r.headroom["memory.available"];
  const metrics: [string, number][] = [
    ["evictions", r.evictions],
    ["pods_evicted", r.podsEvicted],
    ["oom_risk_steps", r.oomRiskSteps],
    ["oom_risk_nodes", r.oomRiskNodes],
    ["memory_pressure_seconds", r.pressureMs.MemoryPressure / 1000],
    ["disk_pressure_seconds", r.pressureMs.DiskPressure / 1000],
    ["pid_pressure_seconds", r.pressureMs.PIDPressure / 1000],
    ["refused_admissions", r.refusedAdmissions],
    ["diverged_pods", r.divergedPods],
    ["failed_nodes", r.failed],
    ...(h === undefined
      ? []
      : ([
          ["memory_available_min_bytes", h.min],
          ["memory_available_p1_bytes", h.p1],
        ] as [string, number][])),
    ...(r.allocatableBytes === null
      ? []
      : ([["allocatable_memory_bytes", r.allocatableBytes]] as [string, number][])),
  ];
  return metrics.map(([k, v]) => `${k}=${v}`).join("\n") + "\n";
}
