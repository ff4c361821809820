/**
 * A fleet comparison on this machine: every trace replayed under every configuration on the worker
 * pool (one task per trace, all its configurations at once), the cells merged into the comparison,
 * then the per-node reports asked for written in a second pass over just those traces.
 */
import { basename, extname, join } from "node:path";
import {
  cellKey,
  compareFleet,
  type FleetComparison,
  type Objective,
} from "../app/compare/fleet-comparison.js";
import type { ConfigVariant } from "../formats/load-config-variants.js";
import { runPool, type PoolProgress } from "./worker-pool.js";
import type { TraceTask } from "./trace-cells.js";

/** Which cells get a per-node report: the worst nodes of each configuration, every cell, or none. */
export type ReportChoice = "worst" | "all" | "none";
export const REPORT_CHOICES: readonly ReportChoice[] = ["worst", "all", "none"];

export interface ComparisonRun {
  readonly traces: readonly string[];
  readonly variants: readonly ConfigVariant[];
  readonly whatIf: boolean;
  readonly objective: Objective;
  readonly workers: number;
  /** Where per-node reports go, with which cells; none without a directory. */
  readonly reports?: { readonly dir: string; readonly choice: ReportChoice };
  readonly generatedBy: string;
  readonly onProgress?: (p: PoolProgress & { readonly phase: "replay" | "reports" }) => void;
}

/** A file name for a cell's report: the trace's and the configuration's names, made safe. */
function reportName(trace: string, config: string, taken: Set<string>): string {
  const safe = (s: string): string => s.replace(/[^A-Za-z0-9._=-]+/g, "_").slice(0, 80);
  const stem = `${safe(basename(trace, extname(trace)))}__${safe(config)}`;
  let name = `${stem}.html`;
  for (let n = 2; taken.has(name); n++) name = `${stem}-${n}.html`;
  taken.add(name);
  return name;
}

export async function runComparison(run: ComparisonRun): Promise<{
  readonly comparison: FleetComparison;
  /** Cell key (compare-html.ts) → the report file written for it. */
  readonly reports: ReadonlyMap<string, string>;
}> {
  const tasks: TraceTask[] = run.traces.map((trace) => ({
    trace,
    variants: run.variants,
    whatIf: run.whatIf,
  }));
  const cells = await runPool(tasks, run.workers, (p) => run.onProgress?.({ ...p, phase: "replay" }));
  const comparison = compareFleet(
    cells.flat(),
    run.variants.map((v) => v.name),
    run.traces,
    run.objective,
    run.whatIf,
  );
  const reports = new Map<string, string>();
  if (run.reports === undefined || run.reports.choice === "none") return { comparison, reports };
  const wanted = new Set<string>();
  for (const row of comparison.configs)
    for (const cell of comparison.cells)
      if (
        cell.config === row.config &&
        cell.ok &&
        (run.reports.choice === "all" || row.worst.some((w) => w.trace === cell.trace))
      )
        wanted.add(cellKey(cell.trace, cell.config));
  const taken = new Set<string>();
  const reportTasks: TraceTask[] = [];
  for (const trace of run.traces) {
    const chosen = run.variants.map((v) => ({ v })).filter(({ v }) => wanted.has(cellKey(trace, v.name)));
    if (chosen.length === 0) continue;
    // Replayed again under the chosen configurations only.
    const files = chosen.map(({ v }, variant) => {
      const file = join(run.reports?.dir ?? ".", reportName(trace, v.name, taken));
      reports.set(cellKey(trace, v.name), file);
      return { variant, file };
    });
    reportTasks.push({
      trace,
      variants: chosen.map(({ v }) => v),
      whatIf: run.whatIf,
      reports: files,
      generatedBy: run.generatedBy,
    });
  }
  await runPool(reportTasks, run.workers, (p) => run.onProgress?.({ ...p, phase: "reports" }));
  return { comparison, reports };
}
