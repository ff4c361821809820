/**
 * Replay throughput: generates recorded traces of a 110-pod node, runs the whole process
 * (`node bin/evictd.js replay FILE --output jsonl > /dev/null`) several times each, and breaks one
 * run down in-process (file read, JSON parse, validation, the rest of loading, replay loop, output).
 *
 *   node dist/bench/replay-bench.js [--quick] [--runs N] [--keep]
 *
 * Traces (all seeded, same node history; see generate-trace.ts for the size of a real Summary):
 * - 35mb:   full kubelet Summary responses, 90 steps (15 minutes, one eviction): about 35 MB;
 * - 3000:   3,000 steps (8h20m), only the Summary blocks the eviction manager reads (about 515 MB);
 * - 10000:  10,000 steps (27h47m) of a 30-pod node, same lean blocks (a 110-pod one does not fit in
 *           one V8 string, 512 MiB).
 * `--quick` runs the 35 MB trace only. Writes bench/results/replay.json.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { configRecord, stepRecord } from "../src/app/replay/records.js";
import { planReplay, runReplay, type StepOutcome } from "../src/app/replay/run-replay.js";
import { parseJsonExact } from "../src/adapters/json/parse-json-exact.js";
import { readTextFile } from "../src/adapters/files/structured-file.js";
import { loadScenarioText } from "../src/adapters/scenario/load-scenario.js";
import { IssueList, pathIndex } from "../src/core/issues.js";
import { validateSummary } from "../src/core/summary/validate-summary.js";
import {
  describeMachine,
  machineInfo,
  median,
  nowMs,
  num,
  quantile,
  table,
  writeResults,
} from "./bench-stats.js";
import { writeTraceFile, type Richness, type TraceInfo } from "./generate-trace.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = join(ROOT, "bin", "evictd.js");

interface TraceSpec {
  readonly id: string;
  readonly steps: number;
  readonly pods: number;
  readonly richness: Richness;
  readonly runs: number;
  /** Where in the node's history the trace starts (generate-trace.ts `fromStep`). */
  readonly fromStep: number;
}

/** In-process phase timings of one replay, milliseconds. */
interface Breakdown {
  readonly readFile: number;
  /** loadScenarioText: JSON parse, validation of every summary, pods, config, steps. */
  readonly load: number;
  /** JSON parse alone and summary validation alone, timed in another fresh process. */
  readonly jsonParse: number;
  readonly validateSummaries: number;
  readonly replayLoop: number;
  readonly output: number;
  readonly total: number;
  readonly outputBytes: number;
}

interface TraceResult {
  readonly id: string;
  readonly steps: number;
  readonly pods: number;
  readonly richness: Richness;
  readonly bytes: number;
  readonly evictions: number;
  readonly evictionsMatchGenerator: boolean;
  readonly runs: number;
  readonly wallMs: {
    readonly median: number;
    readonly p90: number;
    readonly min: number;
    readonly all: readonly number[];
  };
  readonly maxRssMiB: number;
  readonly stepsPerSecond: number;
  readonly megabytesPerSecond: number;
  readonly breakdownMs: Breakdown;
  /** Whole-process median minus the in-process total: node startup, module loading, stdout. */
  readonly processOverheadMs: number;
}

/** The bigint-tolerant JSON the CLI writes. */
function stringify(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x));
}

/** What one child process measures: parse and validation alone, or the replay as the CLI runs it. */
type Phase = "parse" | "run";

/**
 * Runs in a child process (a fresh heap, as the CLI has): `parse` times JSON parsing and summary
 * validation on their own; `run` times the CLI's sequence (read, load, replay loop, output records).
 */
async function breakdownPhase(file: string, phase: Phase): Promise<Record<string, number>> {
  const t0 = nowMs();
  const read = await readTextFile(file, "scenario");
  if (!read.ok) throw new Error(`cannot read ${file}`);
  const t1 = nowMs();
  if (phase === "parse") {
    const parsed = parseJsonExact(read.text) as { steps: { summary?: unknown }[] };
    const t2 = nowMs();
    const issues = new IssueList();
    for (let i = 0; i < parsed.steps.length; i++)
      validateSummary(parsed.steps[i]?.summary, `${pathIndex("steps", i)}.summary`, issues);
    return { jsonParse: t2 - t1, validateSummaries: nowMs() - t2 };
  }
  const loaded = await loadScenarioText(read.text, file, dirname(file));
  const t2 = nowMs();
  if (!loaded.ok) throw new Error(`scenario rejected: ${JSON.stringify(loaded.issues.slice(0, 3))}`);
  const { scenario } = loaded;
  // Records are built and serialised as the CLI does, one per step as it comes (so outcomes do not
  // pile up in memory), and timed apart from the loop; the text is batched and dropped.
  let output = 0;
  let bytes = 0;
  let chunk: string[] = [];
  const emit = (o: StepOutcome): void => {
    const a = nowMs();
    chunk.push(stringify(stepRecord(o)) + "\n");
    if (chunk.length >= 512) {
      bytes += chunk.join("").length;
      chunk = [];
    }
    output += nowMs() - a;
  };
  const plan = planReplay(scenario);
  const c0 = nowMs();
  chunk.push(stringify(configRecord(scenario, plan)) + "\n");
  output += nowMs() - c0;
  runReplay(scenario, plan, emit);
  bytes += chunk.join("").length;
  const t3 = nowMs();
  return { readFile: t1 - t0, load: t2 - t1, replayLoop: t3 - t2 - output, output, outputBytes: bytes };
}

/** One whole-process replay with stdout to /dev/null (or to `capture`); its wall time in ms. */
function runProcess(file: string, capture?: string): number {
  const out = openSync(capture ?? "/dev/null", "w");
  try {
    const t0 = nowMs();
    const r = spawnSync(process.execPath, [CLI, "replay", file, "--output", "jsonl"], {
      stdio: ["ignore", out, "pipe"],
      maxBuffer: 1 << 26,
    });
    const ms = nowMs() - t0;
    if (r.status !== 0)
      throw new Error(`evictd replay exited ${String(r.status)}: ${r.stderr.toString().slice(0, 2000)}`);
    return ms;
  } finally {
    closeSync(out);
  }
}

/** Peak RSS of one run, read from /usr/bin/time when available (spawnSync does not report it). */
function peakRssMiB(file: string): number {
  const r = spawnSync(
    "/usr/bin/time",
    ["-f", "%M", process.execPath, CLI, "replay", file, "--output", "jsonl"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  if (r.error !== undefined || r.status !== 0) return Number.NaN;
  const kib = Number(r.stderr.toString().trim().split("\n").at(-1));
  return Number.isFinite(kib) ? Math.round(kib / 1024) : Number.NaN;
}

/** Evictions in a captured jsonl output, as "step pod". */
function evictionsIn(jsonl: string): string[] {
  const out: string[] = [];
  let step = -1;
  for (const line of jsonl.split("\n")) {
    if (line === "") continue;
    const record = JSON.parse(line) as { type: string; evictions?: { pod: string }[] };
    if (record.type !== "step") continue;
    step++;
    for (const e of record.evictions ?? []) out.push(`${step} ${e.pod}`);
  }
  return out;
}

function phaseInChild(file: string, phase: Phase): Record<string, number> {
  const self = fileURLToPath(import.meta.url);
  // Default heap settings, as the CLI runs with.
  const r = spawnSync(process.execPath, [self, "--breakdown", file, "--phase", phase], {
    encoding: "utf8",
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`breakdown failed: ${r.stderr.slice(0, 2000)}`);
  return JSON.parse(r.stdout) as Record<string, number>;
}

/** Each phase in its own fresh process: parsing the same text twice in one heap would flatter the second. */
function breakdownInChild(file: string): Breakdown {
  const parse = phaseInChild(file, "parse");
  const run = phaseInChild(file, "run");
  const at = (o: Record<string, number>, k: string): number => o[k] ?? Number.NaN;
  const jsonParse = at(parse, "jsonParse");
  const validateSummaries = at(parse, "validateSummaries");
  return {
    readFile: at(run, "readFile"),
    load: at(run, "load"),
    jsonParse,
    validateSummaries,
    replayLoop: at(run, "replayLoop"),
    output: at(run, "output"),
    total: at(run, "readFile") + at(run, "load") + at(run, "replayLoop") + at(run, "output"),
    outputBytes: at(run, "outputBytes"),
  };
}

function measureTrace(spec: TraceSpec, dir: string): TraceResult {
  const file = join(dir, `trace-${spec.id}.json`);
  const g0 = nowMs();
  const info: TraceInfo = writeTraceFile(file, {
    steps: spec.steps,
    pods: spec.pods,
    richness: spec.richness,
    fromStep: spec.fromStep,
  });
  console.log(
    `\n[${spec.id}] ${num(spec.steps)} steps × ${spec.pods} pods, richness ${spec.richness}: ${num(info.bytes / 1e6, 1)} MB ` +
      `(${num(info.bytes / spec.steps / 1024)} KiB/step), ${info.predictedEvictions.length} evictions expected; generated in ${num((nowMs() - g0) / 1000, 1)} s`,
  );

  // Warm-up run (page cache, disk), its output checked against the generator's expectations.
  const captured = join(dir, `out-${spec.id}.jsonl`);
  runProcess(file, captured);
  const seen = evictionsIn(readFileSync(captured, "utf8"));
  rmSync(captured);
  const expected = info.predictedEvictions.map((e) => `${e.step} ${e.pod}`);
  const match = seen.length === expected.length && seen.every((e, i) => e === expected[i]);
  console.log(
    `  engine evictions: ${seen.length} (${match ? "as the generator expected" : `differ from the generator's ${expected.length}`})`,
  );

  const wall: number[] = [];
  for (let i = 0; i < spec.runs; i++) {
    wall.push(runProcess(file));
    console.log(`  run ${i + 1}/${spec.runs}: ${num(wall.at(-1) ?? 0)} ms`);
  }
  const rss = peakRssMiB(file);
  const parts = breakdownInChild(file);
  rmSync(file);
  const med = median(wall);
  return {
    id: spec.id,
    steps: spec.steps,
    pods: spec.pods,
    richness: spec.richness,
    bytes: info.bytes,
    evictions: seen.length,
    evictionsMatchGenerator: match,
    runs: spec.runs,
    wallMs: { median: med, p90: quantile(wall, 0.9), min: Math.min(...wall), all: wall },
    maxRssMiB: rss,
    stepsPerSecond: spec.steps / (med / 1000),
    megabytesPerSecond: info.bytes / 1e6 / (med / 1000),
    breakdownMs: parts,
    processOverheadMs: med - parts.total,
  };
}

function option(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
}

function report(results: readonly TraceResult[]): void {
  const ms = (x: number): string => num(x);
  console.log(
    "\nWhole process: node bin/evictd.js replay FILE --output jsonl > /dev/null\n" +
      table(
        [
          "trace",
          "steps",
          "pods",
          "MB",
          "median ms",
          "p90 ms",
          "min ms",
          "steps/s",
          "MB/s",
          "peak RSS MiB",
          "evictions",
        ],
        results.map((r) => [
          r.id,
          num(r.steps),
          num(r.pods),
          num(r.bytes / 1e6, 1),
          ms(r.wallMs.median),
          ms(r.wallMs.p90),
          ms(r.wallMs.min),
          num(r.stepsPerSecond),
          num(r.megabytesPerSecond, 1),
          num(r.maxRssMiB),
          `${r.evictions}${r.evictionsMatchGenerator ? "" : " (!)"}`,
        ]),
      ),
  );
  console.log(
    "\nIn-process breakdown of one run, ms. load = JSON parse + validation + the rest of loading; the\n" +
      "parse and validation columns are those two alone, timed in another fresh process. startup etc. =\n" +
      "whole-process median minus the in-process total (node and module loading, stdout, exit).\n" +
      table(
        [
          "trace",
          "read file",
          "load",
          "(JSON parse)",
          "(validate)",
          "replay loop",
          "output",
          "in-process",
          "startup etc.",
        ],
        results.map((r) => [
          r.id,
          ms(r.breakdownMs.readFile),
          ms(r.breakdownMs.load),
          ms(r.breakdownMs.jsonParse),
          ms(r.breakdownMs.validateSummaries),
          ms(r.breakdownMs.replayLoop),
          ms(r.breakdownMs.output),
          ms(r.breakdownMs.total),
          r.processOverheadMs < 0 ? "(noise)" : ms(r.processOverheadMs),
        ]),
      ),
  );
}

async function main(argv: readonly string[]): Promise<void> {
  const file = option(argv, "--breakdown");
  if (file !== undefined) {
    const phase = option(argv, "--phase") === "parse" ? "parse" : "run";
    process.stdout.write(JSON.stringify(await breakdownPhase(file, phase)));
    return;
  }
  const runs = option(argv, "--runs");
  const specs: TraceSpec[] = [
    // 15 minutes around the node's first pressure episode (one soft eviction, one replacement pod).
    { id: "35mb", steps: 90, pods: 110, richness: "full", runs: Number(runs ?? 7), fromStep: 560 },
    { id: "3000", steps: 3000, pods: 110, richness: "eviction", runs: Number(runs ?? 3), fromStep: 0 },
    { id: "10000", steps: 10_000, pods: 30, richness: "eviction", runs: Number(runs ?? 3), fromStep: 0 },
  ];
  const selected = argv.includes("--quick") ? specs.slice(0, 1) : specs;
  const machine = machineInfo();
  console.log(`replay bench; ${describeMachine(machine)}`);
  const dir = mkdtempSync(join(tmpdir(), "evictd-bench-"));
  const results: TraceResult[] = [];
  try {
    for (const spec of selected) results.push(measureTrace(spec, dir));
  } finally {
    if (!argv.includes("--keep")) rmSync(dir, { recursive: true, force: true });
  }
  report(results);
  const out = fileURLToPath(new URL("../../bench/results/replay.json", import.meta.url));
  writeResults(out, {
    benchmark: "replay",
    machine,
    target: "35 MB trace under 1 s, whole process",
    results,
  });
  console.log(`\nwrote ${out}`);
}

await main(process.argv.slice(2));
