/**
 * The replay report's cost: generated traces of a 110-pod node (tools/trace-generator, the replay
 * bench's node), 300 and 3,000 steps, each replayed in-process three times without a report and
 * three times with one (collect + render + write), so the report's own time is the difference of
 * medians; the file's size; and the time headless chromium takes from launch to a screenshot of the
 * page, against the same for an empty page (the browser's own start), three runs each.
 *
 *   node dist/bench/report-bench.js [--steps 300,3000] [--runs 3]
 *
 * Writes bench/results/report.json.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Replayer } from "../src/app/replay/run-replay.js";
import { ReportCollector } from "../src/app/report/report-data.js";
import { renderReportHtml } from "../src/app/report/report-html.js";
import { openScenarioFile } from "../src/formats/scenario/open-scenario.js";
import { writeFileAtomic } from "../src/formats/write-file-atomic.js";
import { writeTraceFile } from "../tools/trace-generator/generate-trace.js";
import { readBenchArgs } from "./bench-args.js";
import { describeMachine, machineInfo, median, nowMs, num, table, writeResults } from "./bench-stats.js";

const PODS = 110;

const USAGE = "usage: node dist/bench/report-bench.js [--steps 300,3000] [--runs 3]";

/** One replay of `file`: ms for the replay, and with `report`, ms and bytes of the report too. */
async function replayOnce(
  file: string,
  report: string | undefined,
): Promise<{ ms: number; bytes: number; evictions: number }> {
  const t0 = nowMs();
  const opened = await openScenarioFile(file);
  if (!opened.ok) throw new Error(`cannot open ${file}`);
  const { header, steps } = opened.stream;
  if (header === undefined) throw new Error("no header");
  const collector = report === undefined ? undefined : new ReportCollector("trace.jsonl", header.config);
  let evictions = 0;
  const replayer = new Replayer(header, (o, plan) => {
    evictions += o.report.evictions.length;
    collector?.step(o, plan);
  });
  for await (const step of steps) replayer.step(step);
  replayer.end();
  let bytes = 0;
  if (collector !== undefined && report !== undefined) {
    const html = renderReportHtml(collector.finish([]), "evictd bench");
    await writeFileAtomic(report, html);
    bytes = statSync(report).size;
  }
  return { ms: nowMs() - t0, bytes, evictions };
}

function chromiumMs(chromium: string, page: string, out: string): number {
  const t0 = nowMs();
  const r = spawnSync(
    chromium,
    [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--hide-scrollbars",
      "--window-size=1100,5200",
      `--screenshot=${out}`,
      `file://${page}`,
    ],
    { encoding: "utf8", timeout: 60_000 },
  );
  if (r.status !== 0) throw new Error(`chromium failed: ${r.stderr}`);
  return nowMs() - t0;
}

function findChromium(): string | undefined {
  const r = spawnSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], {
    encoding: "utf8",
  });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

async function main(argv: readonly string[]): Promise<number> {
  const { stepCounts, runs } = readBenchArgs(argv, USAGE, { steps: "string", runs: "string" }, (a) => ({
    stepCounts: a.wholeNumbers("steps", [300, 3000], 1),
    runs: a.wholeNumber("runs", 3, 1),
  }));
  const machine = machineInfo();
  const chromium = findChromium();
  console.log(
    `report bench: ${describeMachine(machine)}; ${PODS} pods; ${runs} runs each; chromium ${chromium ?? "not installed"}`,
  );
  const dir = mkdtempSync(join(tmpdir(), "evictd-report-bench-"));
  const results = [];
  try {
    const empty = join(dir, "empty.html");
    writeFileSync(empty, "<!doctype html><title>empty</title>");
    for (const steps of stepCounts) {
      const trace = join(dir, `trace-${steps}.jsonl`);
      writeTraceFile(trace, { steps, pods: PODS, richness: "recorded", format: "jsonl" });
      const report = join(dir, `report-${steps}.html`);
      const plain: number[] = [];
      const withReport: number[] = [];
      let bytes = 0;
      let evictions = 0;
      for (let i = 0; i < runs; i++) {
        plain.push((await replayOnce(trace, undefined)).ms);
        const r = await replayOnce(trace, report);
        withReport.push(r.ms);
        bytes = r.bytes;
        evictions = r.evictions;
      }
      const browser =
        chromium === undefined
          ? []
          : Array.from({ length: runs }, () => chromiumMs(chromium, report, join(dir, "shot.png")));
      const blank =
        chromium === undefined
          ? []
          : Array.from({ length: runs }, () => chromiumMs(chromium, empty, join(dir, "blank.png")));
      results.push({
        steps,
        pods: PODS,
        traceBytes: statSync(trace).size,
        evictions,
        replayMs: median(plain),
        replayWithReportMs: median(withReport),
        reportMs: median(withReport) - median(plain),
        reportBytes: bytes,
        chromiumScreenshotMs: browser.length === 0 ? null : median(browser),
        chromiumEmptyPageMs: blank.length === 0 ? null : median(blank),
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    "\n" +
      table(
        [
          "steps",
          "evictions",
          "replay ms",
          "with report ms",
          "report ms",
          "report MB",
          "chromium ms",
          "empty page ms",
        ],
        results.map((r) => [
          num(r.steps),
          num(r.evictions),
          num(r.replayMs),
          num(r.replayWithReportMs),
          num(r.reportMs),
          num(r.reportBytes / 1e6, 2),
          r.chromiumScreenshotMs === null ? "–" : num(r.chromiumScreenshotMs),
          r.chromiumEmptyPageMs === null ? "–" : num(r.chromiumEmptyPageMs),
        ]),
      ),
  );
  console.log(
    "report ms = median with report − median without (collect, render, write); chromium = launch to screenshot written",
  );
  writeResults(fileURLToPath(new URL("../../bench/results/report.json", import.meta.url)), {
    benchmark: "report",
    machine,
    parameters: { pods: PODS, steps: stepCounts, runs, richness: "recorded" },
    results,
  });
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
