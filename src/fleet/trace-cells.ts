/**
 * One trace file under every configuration of a comparison: the trace opened (any form replay
 * reads), each configuration made for it (a recorded base is this trace's own configuration), the
 * steps replayed once for all of them (app/compare/replay-under-variants.ts), and the cells returned.
 * Optionally a per-node HTML report of chosen configurations, written beside. A trace that cannot be
 * read, or turns out invalid part-way, fails its own cells and nothing else.
 */
import { basename } from "node:path";
import { reservedMemory } from "../core/config/allocatable-memory.js";
import { formatIssue, type Issue } from "../core/issues.js";
import type { CellResult } from "../app/compare/cell-result.js";
import { replayUnderVariants, type TraceVariant } from "../app/compare/replay-under-variants.js";
import type { ScenarioHeader } from "../app/replay/scenario.js";
import { buildVariantFor, type ConfigVariant } from "../formats/load-config-variants.js";
import { openScenarioFile } from "../formats/scenario/open-scenario.js";
import { writeOutput } from "./compare-plan.js";

/** One trace's share of a comparison. */
export interface TraceTask {
  readonly trace: string;
  readonly variants: readonly ConfigVariant[];
  readonly whatIf: boolean;
  /** Per-node reports to write: which variant, to which file. */
  readonly reports?: readonly { readonly variant: number; readonly file: string }[];
  /** Names the report's generator (`evictd 0.1.0`). */
  readonly generatedBy?: string;
}

const failed = (task: TraceTask, problems: readonly string[]): CellResult[] =>
  task.variants.map((v) => ({
    trace: task.trace,
    config: v.name,
    node: basename(task.trace),
    ok: false,
    problems,
  }));

/** Each variant as this trace replays under it. */
function variantsFor(header: ScenarioHeader, variants: readonly ConfigVariant[]): TraceVariant[] {
  return variants.map((v) => {
    const built = buildVariantFor(v, header.configSource);
    if (!built.ok)
      return { name: v.name, config: { problems: built.issues.map(formatIssue) }, reservedBytes: 0n };
    const reserved = reservedMemory(built.document);
    if (!reserved.ok)
      return { name: v.name, config: { problems: reserved.issues.map(formatIssue) }, reservedBytes: 0n };
    return { name: v.name, config: built.config, reservedBytes: reserved.bytes };
  });
}

/**
 * The cells of `task`, in its variants' order. `onStep` hears every step read (progress). Never
 * throws for bad input: a trace's problems are its cells' `problems`.
 */
export async function runTraceTask(task: TraceTask, onStep?: (count: number) => void): Promise<CellResult[]> {
  const opened = await openScenarioFile(task.trace);
  if (!opened.ok) return failed(task, opened.issues.map(formatIssue));
  const { stream } = opened;
  if (stream.header === undefined) {
    // Read on: every problem of the trace is reported, not only the header's.
    for await (const _ of stream.steps);
    return failed(task, problemsOf(stream.issues()));
  }
  const header = stream.header;
  const reports = task.reports ?? [];
  const reporting =
    reports.length === 0
      ? undefined
      : await Promise.all([import("../app/report/report-data.js"), import("../app/report/report-html.js")]);
  const variants = variantsFor(header, task.variants);
  const collectors = new Map(
    reporting === undefined
      ? []
      : reports.flatMap(({ variant }) => {
          const v = variants[variant];
          if (v === undefined || !("thresholds" in v.config)) return [];
          const source = `${basename(task.trace)} under ${v.name}${task.whatIf ? " (what-if)" : ""}`;
          const collector = new reporting[0].ReportCollector(
            source,
            v.config,
            header.figureSources,
            header.environment,
          );
          return [[variant, collector] as const];
        }),
  );
  const cells = await replayUnderVariants(
    {
      label: task.trace,
      fallbackNode: basename(task.trace),
      header,
      steps: stream.steps,
      issues: () => stream.issues(),
    },
    variants,
    {
      whatIf: task.whatIf,
      ...(collectors.size > 0 ? { observe: (i, o, plan) => collectors.get(i)?.step(o, plan) } : {}),
      ...(onStep !== undefined ? { onStep } : {}),
    },
  );
  if (reporting !== undefined)
    for (const { variant, file } of reports) {
      const collector = collectors.get(variant);
      if (collector === undefined || cells[variant]?.ok !== true) continue;
      const data = collector.finish(stream.issues().map(formatIssue));
      await writeOutput(
        file,
        reporting[1].renderReportHtml(data, task.generatedBy ?? "evictd"),
        "the per-node report",
      );
    }
  return cells;
}

function problemsOf(issues: readonly Issue[]): string[] {
  const errors = issues.filter((i) => i.severity === "error");
  return (errors.length > 0 ? errors : issues).map(formatIssue);
}
