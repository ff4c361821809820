/**
 * `evictd compare`: which configuration should the fleet run? Traces × configurations replayed
 * (what-if by default) on this machine's cores, or past it through a plan of shards:
 *
 *   evictd compare TRACE|DIR... [--config FILE]... [--base FILE|recorded --sweep FIELD=V1,V2...]
 *   evictd compare plan TRACE|DIR... [same options] --out plan.json
 *   evictd compare shard plan.json [--index N] --results DIR       (N: $JOB_COMPLETION_INDEX)
 *   evictd compare merge plan.json --results DIR
 *
 * Wiring only: the options checked (every problem at once, before any replay), then src/fleet.
 */
import { availableParallelism } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { OBJECTIVES, type FleetComparison, type Objective } from "../../app/compare/fleet-comparison.js";
import { formatIssue, type Issue } from "../../core/issues.js";
import { count } from "../../app/plural.js";
import { EXIT, InputError } from "../../errors.js";
import { loadConfigVariants, type ConfigVariant } from "../../formats/load-config-variants.js";
import { unwritableReason } from "../../formats/output-path.js";
import { checkTraceHeaders } from "../../fleet/check-traces.js";
import {
  makePlan,
  planVariant,
  readPlan,
  writeOutput,
  writePlan,
  SHARD_GROUPINGS,
  type ComparePlan,
  type ShardGrouping,
} from "../../fleet/compare-plan.js";
import { mergeShards } from "../../fleet/merge-shards.js";
import { runShard } from "../../fleet/run-shard.js";
import { listTraces } from "../../fleet/list-traces.js";
import { REPORT_CHOICES, runComparison, type ReportChoice } from "../../fleet/run-comparison.js";
import { packageVersion } from "../package-version.js";
import { compareTable, katibLines } from "../output/compare-table.js";
import { terminalSafe } from "../output/terminal-text.js";
import { CompareProgress } from "../output/compare-progress.js";
import { reportFailuresThroughWrites, stdoutFailure } from "../output/output-failure.js";
import { isBrokenPipe } from "../output/broken-pipe.js";

export interface CompareCliOptions {
  readonly config: readonly string[];
  readonly base?: string;
  readonly set: readonly string[];
  readonly sweep: readonly string[];
  readonly objective: string;
  readonly workers?: string;
  readonly output?: string;
  readonly html?: string;
  readonly reports?: string;
  readonly openLoop: boolean;
}

const OUTPUTS = ["table", "json", "katib"] as const;
type Output = (typeof OUTPUTS)[number];

const optionIssue = (path: string, message: string): Issue => ({
  severity: "error",
  path,
  code: "option",
  message,
});

interface Checked {
  readonly objective: Objective;
  readonly output: Output;
  readonly workers: number;
  readonly reports: ReportChoice;
  readonly variants: readonly ConfigVariant[];
  readonly traces: readonly string[];
}

/** Every option and input checked together; throws one InputError with every problem. */
async function check(
  paths: readonly string[],
  opts: CompareCliOptions,
  output: string | undefined,
  more: readonly Issue[] = [],
): Promise<Checked> {
  const issues: Issue[] = [...more];
  const objective = opts.objective as Objective;
  if (!OBJECTIVES.includes(objective))
    issues.push(
      optionIssue(
        "--objective",
        `expected one of ${OBJECTIVES.join(", ")}, got ${JSON.stringify(opts.objective)}`,
      ),
    );
  const out = (output ?? "table") as Output;
  if (!OUTPUTS.includes(out))
    issues.push(
      optionIssue("--output", `expected one of ${OUTPUTS.join(", ")}, got ${JSON.stringify(output)}`),
    );
  let workers = availableParallelism();
  if (opts.workers !== undefined) {
    workers = Number(opts.workers);
    if (!/^\d+$/.test(opts.workers) || workers < 1 || workers > 1024)
      issues.push(
        optionIssue(
          "--workers",
          `expected a whole number from 1 to 1024, got ${JSON.stringify(opts.workers)}`,
        ),
      );
  }
  const reports = (opts.reports ?? "worst") as ReportChoice;
  if (!REPORT_CHOICES.includes(reports))
    issues.push(
      optionIssue(
        "--reports",
        `expected one of ${REPORT_CHOICES.join(", ")}, got ${JSON.stringify(opts.reports)}`,
      ),
    );
  if (opts.html !== undefined) {
    const why = unwritableReason(opts.html);
    if (why !== undefined)
      issues.push(optionIssue("--html", `cannot write ${JSON.stringify(opts.html)}: ${why}`));
  }
  let variants: readonly ConfigVariant[] = [];
  try {
    const loaded = await loadConfigVariants({
      configs: opts.config,
      ...(opts.base !== undefined ? { base: opts.base } : {}),
      sets: opts.set,
      sweeps: opts.sweep,
    });
    variants = loaded.variants;
    for (const w of loaded.warnings) process.stderr.write(terminalSafe(formatIssue(w)) + "\n");
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    issues.push(...error.issues);
  }
  if (out === "katib" && variants.length > 1)
    issues.push(
      optionIssue(
        "--output",
        `katib prints one configuration's metrics (a trial): ${variants.length} configurations given`,
      ),
    );
  const listed = listTraces(paths);
  issues.push(...listed.issues);
  // Each trace's header, whatever else is wrong: every problem is reported in one go.
  issues.push(...(await checkTraceHeaders(listed.traces, variants)));
  if (issues.some((i) => i.severity === "error")) throw new InputError(issues);
  return { objective, output: out, workers, reports, variants, traces: listed.traces };
}

/** Prints the comparison on stdout in the chosen form (one line and exit 3 when stdout cannot take it). */
async function print(c: FleetComparison, output: Output): Promise<void> {
  const text =
    output === "json"
      ? `${JSON.stringify(c, null, 1)}\n`
      : output === "katib"
        ? c.configs[0] === undefined
          ? ""
          : katibLines(c.configs[0])
        : compareTable(c);
  reportFailuresThroughWrites(process.stdout);
  try {
    await new Promise<void>((resolve, reject) =>
      process.stdout.write(text, (e) => (e ? reject(e) : resolve())),
    );
  } catch (error) {
    if (!isBrokenPipe(error)) throw stdoutFailure(error);
  }
}

/** How to write one cell's report by hand (the page's title for cells without one). */
function reportCommand(c: FleetComparison, variants: readonly ConfigVariant[]) {
  return (trace: string, config: string): string => {
    const v = variants.find((x) => x.name === config);
    const base = v === undefined || v.base.kind === "recorded" ? "" : ` --config ${v.base.file}`;
    const sets = (v?.settings ?? []).map((s) => ` --set ${s.text}`).join("");
    return `evictd replay ${trace}${c.whatIf ? " --what-if" : ""}${base}${sets} --report report.html`;
  };
}

async function writeHtml(
  file: string,
  c: FleetComparison,
  links: ReadonlyMap<string, string>,
  variants: readonly ConfigVariant[],
): Promise<void> {
  const { renderCompareHtml } = await import("../../app/report/compare-html.js");
  const relativeLinks = new Map([...links].map(([k, f]) => [k, relative(dirname(file), f)]));
  await writeOutput(
    file,
    renderCompareHtml(c, relativeLinks, reportCommand(c, variants), `evictd ${packageVersion()}`),
    "the comparison page",
  );
  process.stderr.write(
    `comparison written to ${file}${links.size > 0 ? ` (${links.size} per-node reports beside it)` : ""}\n`,
  );
}

const exitOf = (c: FleetComparison): number => (c.failures.length > 0 ? EXIT.cellsFailed : EXIT.ok);

export async function compareCommand(paths: readonly string[], opts: CompareCliOptions): Promise<number> {
  const checked = await check(paths, opts, opts.output);
  const progress = new CompareProgress(process.stderr);
  const reportsDir =
    opts.html === undefined ? undefined : join(dirname(opts.html), `${basename(opts.html, ".html")}-reports`);
  const { comparison, reports } = await runComparison({
    traces: checked.traces,
    variants: checked.variants,
    whatIf: !opts.openLoop,
    objective: checked.objective,
    workers: checked.workers,
    ...(reportsDir !== undefined ? { reports: { dir: reportsDir, choice: checked.reports } } : {}),
    generatedBy: `evictd ${packageVersion()}`,
    onProgress: (p) => progress.update(p),
  });
  progress.end();
  if (opts.html !== undefined) await writeHtml(opts.html, comparison, reports, checked.variants);
  await print(comparison, checked.output);
  return exitOf(comparison);
}

export async function comparePlanCommand(
  paths: readonly string[],
  opts: CompareCliOptions & { readonly out?: string; readonly group?: string },
): Promise<number> {
  const out = opts.out;
  const why = out === undefined ? "the plan's file is required: --out plan.json" : unwritableReason(out);
  const outIssue =
    why === undefined
      ? []
      : [optionIssue("--out", out === undefined ? why : `cannot write ${JSON.stringify(out)}: ${why}`)];
  const group = (opts.group ?? "cell") as ShardGrouping;
  if (!SHARD_GROUPINGS.includes(group))
    outIssue.push(
      optionIssue(
        "--group",
        `expected one of ${SHARD_GROUPINGS.join(", ")}, got ${JSON.stringify(opts.group)}`,
      ),
    );
  const checked = await check(paths, opts, undefined, outIssue);
  if (out === undefined) throw new Error("internal: checked above");
  const plan = await makePlan(checked.traces, checked.variants, {
    objective: checked.objective,
    whatIf: !opts.openLoop,
    evictd: packageVersion(),
    group,
  });
  await writePlan(out, plan);
  // The shard count alone on stdout: a script sets the Indexed Job's completions from it.
  process.stdout.write(`${plan.shards.length}\n`);
  process.stderr.write(
    `plan written to ${out}: ${count(plan.traces.length, "trace")} × ${count(plan.configs.length, "configuration")} in ${count(plan.shards.length, "shard")} (indexes 0 to ${plan.shards.length - 1}, ${group === "trace" ? "one per trace" : "one per trace × configuration"})\n`,
  );
  return EXIT.ok;
}

async function loadPlan(file: string): Promise<ComparePlan> {
  const read = await readPlan(file);
  if (!read.ok) throw new InputError(read.issues);
  return read.plan;
}

/**
 * One shard: exit 0 when its result is written (or already there), 2 when its input is invalid
 * (the plan, the index, a trace changed since the plan or unreadable: not worth a retry; the
 * result file still says why), 3 when the results cannot be written (worth a retry).
 */
export async function compareShardCommand(
  planFile: string,
  opts: { readonly index?: string; readonly results?: string },
): Promise<number> {
  const plan = await loadPlan(planFile);
  const indexText = opts.index ?? process.env["JOB_COMPLETION_INDEX"];
  const issues: Issue[] = [];
  if (indexText === undefined)
    issues.push(
      optionIssue(
        "--index",
        "no shard index: give --index N or set JOB_COMPLETION_INDEX (an Indexed Job does)",
      ),
    );
  const index = Number(indexText);
  if (indexText !== undefined && (!/^\d+$/.test(indexText) || plan.shards[index] === undefined))
    issues.push(
      optionIssue(
        "--index",
        `expected a shard index from 0 to ${plan.shards.length - 1}, got ${JSON.stringify(indexText)}`,
      ),
    );
  if (opts.results === undefined)
    issues.push(optionIssue("--results", "the results directory is required: --results DIR"));
  if (issues.length > 0) throw new InputError(issues);
  const results = opts.results;
  if (results === undefined) throw new Error("internal: checked above");
  const outcome = await runShard(plan, index, results);
  if (outcome.kind === "skipped") {
    process.stderr.write(`shard ${index}: already done (${outcome.label})\n`);
    return EXIT.ok;
  }
  const failed = outcome.cells.find((c) => !c.ok);
  process.stderr.write(
    `shard ${index}: ${failed === undefined || failed.ok ? "done" : `failed: ${failed.problems[0] ?? ""}`} (${outcome.label})\n`,
  );
  return failed === undefined ? EXIT.ok : EXIT.input;
}

export async function compareMergeCommand(
  planFile: string,
  opts: { readonly results?: string; readonly output?: string; readonly html?: string },
): Promise<number> {
  const plan = await loadPlan(planFile);
  const issues: Issue[] = [];
  if (opts.results === undefined)
    issues.push(optionIssue("--results", "the results directory is required: --results DIR"));
  const output = (opts.output ?? "table") as Output;
  if (!OUTPUTS.includes(output))
    issues.push(
      optionIssue("--output", `expected one of ${OUTPUTS.join(", ")}, got ${JSON.stringify(opts.output)}`),
    );
  if (opts.html !== undefined) {
    const why = unwritableReason(opts.html);
    if (why !== undefined)
      issues.push(optionIssue("--html", `cannot write ${JSON.stringify(opts.html)}: ${why}`));
  }
  if (issues.length > 0 || opts.results === undefined) throw new InputError(issues);
  const { comparison, missing } = await mergeShards(plan, opts.results);
  if (missing > 0)
    process.stderr.write(`merge: ${missing} of ${plan.shards.length} shards have no current result\n`);
  if (opts.html !== undefined)
    await writeHtml(opts.html, comparison, new Map(), plan.configs.map(planVariant));
  await print(comparison, output);
  return exitOf(comparison);
}
