/**
 * `evictd replay SCENARIO`: replays a scenario step by step as it is read (a document from memory,
 * a JSONL trace as it streams), keeping the output until the end, so that invalid input, wherever
 * it is found, prints nothing on stdout; then prints one record per step as JSON lines, or a table
 * for people.
 */
import { configRecordOf, stepRecord } from "../../app/replay/records.js";
import { PodRoster } from "../../app/replay/pod-roster.js";
import { Replayer, type ReplayPlan, type StepOutcome } from "../../app/replay/run-replay.js";
import { openScenarioFile, openScenarioInput } from "../../formats/scenario/open-scenario.js";
import { formatIssue } from "../../core/issues.js";
// Renamed: `count` below is the number of steps replayed.
import { count as counted } from "../../app/plural.js";
import { EXIT, InputError } from "../../errors.js";
import { TableWriter, tableHeader } from "../output/replay-table.js";
import { terminalSafe } from "../output/terminal-text.js";
import { HeldOutput } from "../output/held-output.js";
import { isBrokenPipe } from "../output/broken-pipe.js";
import { reportFailuresThroughWrites, stdoutFailure } from "../output/output-failure.js";
import { ReplayProgress } from "../output/replay-progress.js";
import { writeFileAtomic } from "../../formats/write-file-atomic.js";
import { packageVersion } from "../package-version.js";
import { basename } from "node:path";
import type { ScenarioHeader } from "../../app/replay/scenario.js";
import {
  buildVariantFor,
  loadConfigVariants,
  type ConfigVariant,
} from "../../formats/load-config-variants.js";

export async function replayCommand(
  source: string,
  opts: { output?: string; report?: string; whatIf?: boolean; config?: string; set?: readonly string[] },
): Promise<number> {
  const output = opts.output ?? (process.stdout.isTTY ? "table" : "jsonl");
  if (output !== "jsonl" && output !== "table") {
    throw new InputError([
      {
        severity: "error",
        path: "--output",
        code: "enum",
        message: `expected jsonl or table, got ${JSON.stringify(output)}`,
      },
    ]);
  }
  // Another configuration than the scenario's: checked before the scenario is read.
  const replacing = opts.config !== undefined || (opts.set ?? []).length > 0;
  const variant = replacing
    ? await loadConfigVariants({
        configs: opts.config !== undefined ? [opts.config] : [],
        sets: opts.set ?? [],
      })
    : undefined;
  for (const w of variant?.warnings ?? []) process.stderr.write(terminalSafe(formatIssue(w)) + "\n");
  const opened =
    source === "-"
      ? await openScenarioInput(process.stdin, "<stdin>", process.cwd())
      : await openScenarioFile(source);
  if (!opened.ok) throw new InputError(opened.issues);
  const { steps } = opened.stream;
  const header =
    opened.stream.header === undefined || variant?.variants[0] === undefined
      ? opened.stream.header
      : withVariant(opened.stream.header, variant.variants[0]);
  const replayOptions = { whatIf: opts.whatIf === true };

  // The body of the output (every step), held until every step has been read and checked.
  const sink = new HeldOutput();
  const table = output === "table" ? new TableWriter(sink) : undefined;
  const emit = (o: StepOutcome, plan: ReplayPlan): void => {
    if (table !== undefined) table.step(o, plan);
    else {
      sink.write(stringify(stepRecord(o)));
      sink.write("\n");
    }
  };
  // The report's modules (and d3) are loaded only for a report.
  const reporting =
    opts.report === undefined || header === undefined
      ? undefined
      : await Promise.all([
          import("../../app/report/report-data.js"),
          import("../../app/report/report-html.js"),
        ]);
  const report =
    reporting === undefined || header === undefined
      ? undefined
      : new reporting[0].ReportCollector(
          source === "-" ? "<stdin>" : basename(source),
          header.config,
          header.figureSources,
          header.environment,
        );
  const replayer =
    header === undefined
      ? undefined
      : new Replayer(
          header,
          (o, plan) => {
            emit(o, plan);
            report?.step(o, plan);
          },
          undefined,
          replayOptions,
        );
  const roster = new PodRoster(header?.pods);
  const progress = new ReplayProgress(process.stderr);
  let count = 0;
  for await (const step of steps) {
    roster.add(step.addPods);
    count++;
    replayer?.step(step);
    progress.step(count);
  }
  progress.end();

  const issues = opened.stream.issues();
  if (issues.some((i) => i.severity === "error")) throw new InputError(issues);
  if (header === undefined || replayer === undefined)
    throw new Error("internal: a scenario without a header passed its checks");
  for (const w of issues) process.stderr.write(terminalSafe(formatIssue(w)) + "\n");
  const plan = replayer.end();
  table?.end();
  if (report !== undefined && reporting !== undefined && opts.report !== undefined) {
    const { renderReportHtml } = reporting[1];
    const data = report.finish(issues.map(formatIssue));
    try {
      await writeFileAtomic(opts.report, renderReportHtml(data, `evictd ${packageVersion()}`));
    } catch (error) {
      throw new InputError([
        {
          severity: "error",
          path: "--report",
          code: "unwritable",
          message: `cannot write ${JSON.stringify(opts.report)}: ${error instanceof Error ? error.message : String(error)}`,
        },
      ]);
    }
    process.stderr.write(
      `report written to ${opts.report}: ${counted(data.times.length, "step")}, ${counted(data.evictions.length, "eviction")}\n`,
    );
  }

  const head =
    table !== undefined
      ? tableHeader(header, plan, count, roster.size)
      : stringify(configRecordOf(header, plan, roster.pods, replayOptions)) + "\n";
  // A reader that stops early (`| head`) ends the output, not the command's success; a stdout that
  // cannot take it (a full disk) is one line and exit 3. The listener stays: the stream reports
  // the failed write again as an event, after the write's callback.
  reportFailuresThroughWrites(process.stdout);
  try {
    await sink.writeTo(process.stdout, head);
  } catch (error) {
    if (!isBrokenPipe(error)) throw stdoutFailure(error);
  }
  return EXIT.ok;
}

/** The scenario's header under `variant` (a file, or its own configuration with settings over it). */
function withVariant(header: ScenarioHeader, variant: ConfigVariant): ScenarioHeader {
  const built = buildVariantFor(variant, header.configSource);
  if (!built.ok) throw new InputError(built.issues);
  return { ...header, config: built.config };
}

/** JSON with bigints as strings (they only appear in user-supplied values echoed back). */
function stringify(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
}
