/**
 * Replay throughput: generates recorded traces of a 110-pod node, runs the whole process
 * (`node bin/evictd.js replay FILE --output jsonl > /dev/null`) several times each, reading its
 * peak RSS from the child itself, and breaks one run down in-process.
 *
 *   node dist/bench/replay-bench.js [--quick] [--runs N] [--keep]
 *
 * Traces (all seeded, same node history; see generate-trace.ts for the size of a real Summary):
 * - 35mb:             full kubelet Summary responses, 90 steps (15 minutes, one eviction), one
 *                     JSON document: about 35 MB;
 * - recorded / -jsonl: 3,000 steps (8h20m) in the compact `recorded` shape, about 39 MB, as one JSON
 *                     document and as JSONL (docs/replay-format.md, "JSONL scenarios");
 * - full-jsonl:       3,000 steps of full Summary responses as JSONL, about 1.2 GB (1,000 steps when
 *                     the temporary directory lacks the space): far beyond what one document can
 *                     hold (a V8 string is at most 512 MiB), streamed; written to a temporary file
 *                     and deleted afterwards.
 * The in-process breakdown of a document: file read, load (JSON parse, validation, the rest), replay
 * loop, output. Of JSONL, where these are interleaved step by step: reading lines, JSON parse,
 * checking (parse included), replay loop, output. `--quick` runs the 35 MB trace only. Writes
 * bench/results/replay.json.
 */
import { spawnSync } from "node:child_process";
import {
  closeSync,
  createReadStream,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statfsSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { configRecord, stepRecord } from "../src/app/replay/records.js";
import { planReplay, Replayer, runReplay, type StepOutcome } from "../src/app/replay/run-replay.js";
import { parseJsonExact } from "../src/formats/json/parse-json-exact.js";
import { describeReadError, readTextFile } from "../src/formats/structured-file.js";
import { linesOfChunks } from "../src/formats/scenario/jsonl-lines.js";
import { openScenarioFile } from "../src/formats/scenario/open-scenario.js";
import { loadScenarioText } from "../src/formats/scenario/load-scenario.js";
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
import { readBenchArgs } from "./bench-args.js";
import {
  writeTraceFile,
  type Richness,
  type TraceFormat,
  type TraceInfo,
} from "../tools/trace-generator/generate-trace.js";
import { compareWithModel, evictionKey } from "../tools/trace-generator/eviction-model.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = join(ROOT, "bin", "evictd.js");

interface TraceSpec {
  readonly id: string;
  readonly steps: number;
  readonly pods: number;
  readonly richness: Richness;
  readonly format: TraceFormat;
  readonly runs: number;
  /** Where in the node's history the trace starts (generate-trace.ts `fromStep`). */
  readonly fromStep: number;
  /** Whether to time the phases in-process too (two more replays). */
  readonly breakdown: boolean;
}

/** In-process phase timings of one replay, milliseconds. */
interface Breakdown {
  /** Document: reading the file into a string. JSONL: reading it into lines, and nothing else. */
  readonly readFile: number;
  /**
   * Document: loadScenarioText (JSON parse, validation of every summary, pods, config, steps).
   * JSONL: reading, parsing and checking every line (the header's files included), replay aside.
   */
  readonly load: number;
  /** JSON parse alone (JSONL: reading lines excluded) and summary validation alone, timed in another fresh process. */
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
  readonly format: TraceFormat;
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
  /** Peak resident set size of the replay process, the largest over the timed runs. */
  readonly maxRssMiB: number;
  readonly stepsPerSecond: number;
  readonly megabytesPerSecond: number;
  readonly breakdownMs?: Breakdown;
  /** Whole-process median minus the in-process total: node startup, module loading, stdout. */
  readonly processOverheadMs?: number;
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
  if (file.endsWith(".jsonl")) return jsonlBreakdownPhase(file, phase);
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

/**
 * The JSONL phases. `parse`: reading lines alone, then reading and parsing them (summary validation
 * timed apart). `run`: the CLI's sequence, each step checked, replayed and its record built as it
 * is read; the time inside the loop body is the replay loop and the output.
 */
async function jsonlBreakdownPhase(file: string, phase: Phase): Promise<Record<string, number>> {
  const lines = (): ReturnType<typeof linesOfChunks> =>
    linesOfChunks(createReadStream(file, { highWaterMark: 1 << 20 }), describeReadError);
  if (phase === "parse") {
    const t0 = nowMs();
    for await (const _ of lines()) {
      // reading only
    }
    const t1 = nowMs();
    let validate = 0;
    const issues = new IssueList();
    let index = -1;
    for await (const line of lines()) {
      if (line.kind !== "line" || line.text === "") continue;
      const value = parseJsonExact(line.text) as { summary?: unknown };
      if (index >= 0) {
        const a = nowMs();
        validateSummary(value.summary, `${pathIndex("steps", index)}.summary`, issues);
        validate += nowMs() - a;
      }
      index++;
    }
    return { readFile: t1 - t0, jsonParse: nowMs() - t1 - validate, validateSummaries: validate };
  }
  const t0 = nowMs();
  // As the CLI opens it (the file read in chunks into one buffer).
  const opened = await openScenarioFile(file);
  if (!opened.ok || opened.stream.header === undefined) throw new Error(`scenario rejected: ${file}`);
  let replay = 0;
  let output = 0;
  let bytes = 0;
  let chunk: string[] = [];
  const replayer = new Replayer(opened.stream.header, (o) => {
    const a = nowMs();
    chunk.push(stringify(stepRecord(o)) + "\n");
    if (chunk.length >= 512) {
      bytes += chunk.join("").length;
      chunk = [];
    }
    output += nowMs() - a;
  });
  for await (const step of opened.stream.steps) {
    const a = nowMs();
    replayer.step(step);
    replay += nowMs() - a;
  }
  replayer.end();
  bytes += chunk.join("").length;
  if (opened.stream.issues().some((i) => i.severity === "error"))
    throw new Error(`scenario rejected: ${file}`);
  const total = nowMs() - t0;
  return {
    readFile: Number.NaN,
    load: total - replay,
    replayLoop: replay - output,
    output,
    outputBytes: bytes,
  };
}

/** Reports the child's own peak RSS on stderr when it exits (spawnSync does not give it). */
const REPORT_RSS = `data:text/javascript,process.on("exit",()=>process.stderr.write("\\nmaxrss-kib="+process.resourceUsage().maxRSS+"\\n"))`;

/** One whole-process replay with stdout to /dev/null (or to `capture`): wall time (ms) and peak RSS (MiB). */
function runProcess(file: string, capture?: string): { ms: number; rssMiB: number } {
  const out = openSync(capture ?? "/dev/null", "w");
  try {
    const t0 = nowMs();
    const r = spawnSync(
      process.execPath,
      ["--import", REPORT_RSS, CLI, "replay", file, "--output", "jsonl"],
      {
        stdio: ["ignore", out, "pipe"],
        maxBuffer: 1 << 26,
      },
    );
    const ms = nowMs() - t0;
    const stderr = r.stderr.toString();
    if (r.status !== 0) throw new Error(`evictd replay exited ${String(r.status)}: ${stderr.slice(0, 2000)}`);
    const kib = Number(/maxrss-kib=(\d+)/.exec(stderr)?.[1]);
    return { ms, rssMiB: Math.round(kib / 1024) };
  } finally {
    closeSync(out);
  }
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
    for (const e of record.evictions ?? []) out.push(evictionKey(step, e.pod));
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
  // JSONL reads lines as part of loading: its reading time is the parse phase's, and is not added.
  const jsonl = file.endsWith(".jsonl");
  const readFile = jsonl ? at(parse, "readFile") : at(run, "readFile");
  return {
    readFile,
    load: at(run, "load"),
    jsonParse,
    validateSummaries,
    replayLoop: at(run, "replayLoop"),
    output: at(run, "output"),
    total: (jsonl ? 0 : readFile) + at(run, "load") + at(run, "replayLoop") + at(run, "output"),
    outputBytes: at(run, "outputBytes"),
  };
}

function measureTrace(spec: TraceSpec, dir: string): TraceResult {
  const file = join(dir, `trace-${spec.id}.${spec.format}`);
  const g0 = nowMs();
  const info: TraceInfo = writeTraceFile(file, {
    steps: spec.steps,
    pods: spec.pods,
    richness: spec.richness,
    fromStep: spec.fromStep,
    format: spec.format,
  });
  console.log(
    `\n[${spec.id}] ${num(spec.steps)} steps × ${spec.pods} pods, richness ${spec.richness}, ${spec.format === "jsonl" ? "JSONL" : "one JSON document"}: ` +
      `${num(info.bytes / 1e6, 1)} MB (${num(info.bytes / spec.steps / 1024)} KiB/step), ${info.predictedEvictions.length} evictions expected; ` +
      `generated in ${num((nowMs() - g0) / 1000, 1)} s`,
  );

  try {
    // Warm-up run (page cache, disk), its output checked against the generator's expectations.
    const captured = join(dir, `out-${spec.id}.jsonl`);
    runProcess(file, captured);
    const seen = evictionsIn(readFileSync(captured, "utf8"));
    rmSync(captured);
    // The generator's eviction model is the oracle: it predicted these evictions while writing.
    const verdict = compareWithModel(info.predictedEvictions, seen);
    console.log(
      `  engine evictions: ${seen.length} (${verdict.agree ? "as the generator expected" : `differ from the generator's ${verdict.predicted.length}`})`,
    );

    const wall: number[] = [];
    let rss = 0;
    for (let i = 0; i < spec.runs; i++) {
      const run = runProcess(file);
      wall.push(run.ms);
      rss = Math.max(rss, run.rssMiB);
      console.log(`  run ${i + 1}/${spec.runs}: ${num(run.ms)} ms, peak RSS ${num(run.rssMiB)} MiB`);
    }
    const parts = spec.breakdown ? breakdownInChild(file) : undefined;
    const med = median(wall);
    return {
      id: spec.id,
      steps: spec.steps,
      pods: spec.pods,
      richness: spec.richness,
      format: spec.format,
      bytes: info.bytes,
      evictions: seen.length,
      evictionsMatchGenerator: verdict.agree,
      runs: spec.runs,
      wallMs: { median: med, p90: quantile(wall, 0.9), min: Math.min(...wall), all: wall },
      maxRssMiB: rss,
      stepsPerSecond: spec.steps / (med / 1000),
      megabytesPerSecond: info.bytes / 1e6 / (med / 1000),
      ...(parts !== undefined ? { breakdownMs: parts, processOverheadMs: med - parts.total } : {}),
    };
  } finally {
    rmSync(file, { force: true });
  }
}

/** Bytes free in `dir` for an unprivileged writer, or Infinity when the platform cannot tell. */
function freeBytes(dir: string): number {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

const USAGE = `usage: node dist/bench/replay-bench.js [--quick] [--runs N] [--keep]
       (--breakdown FILE --phase parse|run: one in-process breakdown, as the bench runs it in a child)`;

interface Args {
  /** Runs of each trace; each trace's own default when absent. */
  readonly runs: number | undefined;
  readonly quick: boolean;
  readonly keep: boolean;
  readonly breakdown: { readonly file: string; readonly phase: Phase } | undefined;
}

function parseArgs(argv: readonly string[]): Args {
  return readBenchArgs(
    argv,
    USAGE,
    { runs: "string", quick: "boolean", keep: "boolean", breakdown: "string", phase: "string" },
    (a) => {
      const file = a.string("breakdown");
      const phase = a.choice("phase", ["parse", "run"] as const, "run");
      a.require(file !== undefined || !a.has("phase"), "--phase: only with --breakdown FILE");
      return {
        runs: a.has("runs") ? a.wholeNumber("runs", 1, 1) : undefined,
        quick: a.flag("quick"),
        keep: a.flag("keep"),
        breakdown: file === undefined ? undefined : { file, phase },
      };
    },
  );
}

function report(results: readonly TraceResult[]): void {
  const ms = (x: number): string => num(x);
  console.log(
    "\nWhole process: node bin/evictd.js replay FILE --output jsonl > /dev/null\n" +
      table(
        [
          "trace",
          "form",
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
          r.format,
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
  const broken = results.filter((r) => r.breakdownMs !== undefined);
  const ms0 = (r: TraceResult, k: keyof Breakdown): string => ms(r.breakdownMs?.[k] ?? Number.NaN);
  console.log(
    "\nIn-process breakdown of one run, ms. load = JSON parse + validation + the rest of loading (JSONL:\n" +
      "reading lines too, as they are interleaved); the parse and validation columns are those two alone,\n" +
      "timed in another fresh process. startup etc. = whole-process median minus the in-process total\n" +
      "(node and module loading, stdout, exit).\n" +
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
        broken.map((r) => [
          `${r.id} (${r.format})`,
          ms0(r, "readFile"),
          ms0(r, "load"),
          ms0(r, "jsonParse"),
          ms0(r, "validateSummaries"),
          ms0(r, "replayLoop"),
          ms0(r, "output"),
          ms0(r, "total"),
          (r.processOverheadMs ?? 0) < 0 ? "(noise)" : ms(r.processOverheadMs ?? Number.NaN),
        ]),
      ),
  );
}

async function main(argv: readonly string[]): Promise<void> {
  const args = parseArgs(argv);
  if (args.breakdown !== undefined) {
    const { file, phase } = args.breakdown;
    process.stdout.write(JSON.stringify(await breakdownPhase(file, phase)));
    return;
  }
  const runs = args.runs;
  const dir = mkdtempSync(join(tmpdir(), "evictd-bench-"));
  // The full-shape JSONL trace is about 400 KB a step: 3,000 steps need 1.2 GB of scratch space.
  const fullSteps = freeBytes(dir) > 3000 * 400_000 * 1.5 ? 3000 : 1000;
  const specs: TraceSpec[] = [
    // 15 minutes around the node's first pressure episode (one soft eviction, one replacement pod).
    {
      id: "35mb",
      steps: 90,
      pods: 110,
      richness: "full",
      format: "json",
      runs: runs ?? 7,
      fromStep: 560,
      breakdown: true,
    },
    {
      id: "recorded",
      steps: 3000,
      pods: 110,
      richness: "recorded",
      format: "json",
      runs: runs ?? 7,
      fromStep: 0,
      breakdown: true,
    },
    {
      id: "recorded",
      steps: 3000,
      pods: 110,
      richness: "recorded",
      format: "jsonl",
      runs: runs ?? 7,
      fromStep: 0,
      breakdown: true,
    },
    {
      id: "full",
      steps: fullSteps,
      pods: 110,
      richness: "full",
      format: "jsonl",
      runs: runs ?? 3,
      fromStep: 0,
      breakdown: false,
    },
  ];
  const selected = args.quick ? specs.slice(0, 1) : specs;
  const machine = machineInfo();
  console.log(`replay bench; ${describeMachine(machine)}`);
  const results: TraceResult[] = [];
  try {
    for (const spec of selected) results.push(measureTrace(spec, dir));
  } finally {
    if (!args.keep) rmSync(dir, { recursive: true, force: true });
  }
  report(results);
  const out = fileURLToPath(new URL("../../bench/results/replay.json", import.meta.url));
  writeResults(out, {
    benchmark: "replay",
    machine,
    target:
      "35 MB trace under 1 s, and the 3,000-step recorded trace under 1 s (JSONL well under), whole process",
    results,
  });
  console.log(`\nwrote ${out}`);
}

await main(process.argv.slice(2));
