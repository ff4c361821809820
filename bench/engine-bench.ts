/**
 * Engine throughput: synchronize runs per second at 110, 1,000 and 10,000 pods, on the expensive path
 * (a memory threshold met every run: every pod ranked, eviction messages built), the quiet path
 * (no threshold met: observations, thresholds and the local-storage checks only), and a memory
 * wake's path: the pressure path on the summary a wake decides from, where only the pods that held
 * the most were read (8) and every other pod ranks at the pods cgroup's bound, wrapped anew each
 * run as the loop does (core/rank/working-set-bounds.ts).
 *
 *   node dist/bench/engine-bench.js [--sizes 110,1000,10000] [--paths pressure,quiet,wake] [--batches 9]
 *        [--batch-ms 150]
 *
 * Writes bench/results/engine.json.
 */
import { fileURLToPath } from "node:url";
import { buildEvictionConfig } from "../src/core/config/build-eviction-config.js";
import { INITIAL_STATE, synchronize } from "../src/core/engine/index.js";
import type { EngineState, SyncReport } from "../src/core/engine/types.js";
import { IssueList } from "../src/core/issues.js";
import type { EvictionConfig, NodeSummary, Pod } from "../src/core/model.js";
import { decodePodList } from "../src/core/pod/decode-pod.js";
import { decodeSummary } from "../src/core/summary/decode-summary.js";
import { withWorkingSetBounds, type UnreadPods } from "../src/core/rank/working-set-bounds.js";
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
import { nodeSnapshot } from "../tools/trace-generator/generate-trace.js";
import { MI } from "../tools/trace-generator/trace-pods.js";

type Path = "pressure" | "quiet" | "wake";

const PATHS: readonly Path[] = ["pressure", "quiet", "wake"];

/** Pods a memory wake on a large node reads (partial-usage-read.ts reads at least this many). */
const WAKE_PODS_READ = 8;

/** The wake path's clock: the time the generated snapshot's stats carry. */
const WAKE_AT = Date.parse("2025-03-03T08:00:00Z");

interface Case {
  readonly pods: number;
  readonly path: Path;
  readonly config: EvictionConfig;
  readonly activePods: readonly Pod[];
  readonly summary: NodeSummary;
  /** The wake path: the pods left unread and their bound. */
  readonly unread?: UnreadPods;
}

interface CaseResult {
  readonly pods: number;
  readonly path: Path;
  readonly outcome: string;
  readonly rankedPods: number;
  readonly iterationsPerBatch: number;
  readonly batches: number;
  readonly medianSyncsPerSecond: number;
  readonly medianMicrosPerSync: number;
  readonly p90MicrosPerSync: number;
}

/** Removes every `time` field: each run then counts as fresh stats (the engine acts every time). */
function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== "time") out[k] = withoutTimes(v);
  return out;
}

function buildCase(pods: number, path: Path): Case {
  // Pressure: 300Mi available, under the 500Mi hard threshold. Quiet: 12Gi available.
  const snapshot = nodeSnapshot({ pods, memoryAvailable: path === "quiet" ? 12 * 1024 * MI : 300 * MI });
  const built = buildEvictionConfig({ config: snapshot.config });
  if (!built.ok) throw new Error(`bench config rejected: ${JSON.stringify(built.issues)}`);
  const issues = new IssueList();
  const activePods = decodePodList(snapshot.pods, "pods", issues);
  // Decoded once: the pod stats are memoised on the summary, so the runs measure the engine alone.
  // A wake's summary keeps its time fields, as the collector's does (each bound carries its pod's).
  const raw = path === "wake" ? snapshot.summary : withoutTimes(snapshot.summary);
  const summary = decodeSummary(raw, "summary", undefined, issues);
  if (summary === undefined || issues.hasErrors)
    throw new Error(`bench input rejected: ${JSON.stringify(issues.items.slice(0, 3))}`);
  void summary.pods;
  const unread: UnreadPods | undefined =
    path === "wake"
      ? {
          uids: new Set(summary.pods.slice(WAKE_PODS_READ).map((p) => p.podRef.uid)),
          usageBoundBytes: 64n * BigInt(MI),
        }
      : undefined;
  return { pods, path, config: built.config, activePods, summary, ...(unread ? { unread } : {}) };
}

/**
 * Runs `n` synchronizes, carrying state (as the kubelet does) with the clock 10 s further each time;
 * the wake path decides each time from the initial state at the stats' time (a wake is one
 * decision on stats that time-stamp themselves; carried over, the same stats would be stale).
 */
function runMany(c: Case, state: { engine: EngineState; now: number }, n: number): SyncReport | undefined {
  let last: SyncReport | undefined;
  for (let i = 0; i < n; i++) {
    if (c.unread === undefined) state.now += 10_000;
    else {
      state.engine = INITIAL_STATE;
      state.now = WAKE_AT;
    }
    const result = synchronize(c.config, state.engine, {
      now: state.now,
      summary: c.unread === undefined ? c.summary : withWorkingSetBounds(c.summary, c.unread),
      activePods: c.activePods,
      layout: "dedicated",
    });
    if (result.kind === "reclaim") {
      const resumed = result.resume({ summary: c.summary });
      state.engine = resumed.state;
      last = resumed.report;
    } else {
      state.engine = result.state;
      last = result.report;
    }
  }
  return last;
}

function measure(c: Case, batches: number, batchMs: number): CaseResult {
  const state = { engine: INITIAL_STATE, now: Date.parse("2025-03-03T08:00:00Z") };
  // Warm-up: let the JIT settle, and size a batch to about batchMs.
  let n = 1;
  let spent = 0;
  const warmupStart = nowMs();
  while (nowMs() - warmupStart < Math.max(300, batchMs * 2)) {
    const t0 = nowMs();
    runMany(c, state, n);
    spent = nowMs() - t0;
    if (spent < batchMs / 4) n *= 2;
  }
  const perBatch = Math.max(1, Math.round((n * batchMs) / Math.max(spent, 0.001)));
  const micros: number[] = [];
  let report: SyncReport | undefined;
  for (let b = 0; b < batches; b++) {
    const t0 = nowMs();
    report = runMany(c, state, perBatch);
    micros.push(((nowMs() - t0) * 1000) / perBatch);
  }
  if (report === undefined) throw new Error("no report");
  if (c.path !== "quiet" && report.evictions.length !== 1)
    throw new Error(`${c.path} path did not evict: ${report.outcome}`);
  if (c.path === "quiet" && report.thresholdsMet.length !== 0)
    throw new Error(`quiet path met a threshold: ${report.outcome}`);
  const med = median(micros);
  return {
    pods: c.pods,
    path: c.path,
    outcome: report.outcome,
    rankedPods: report.ranking?.length ?? 0,
    iterationsPerBatch: perBatch,
    batches,
    medianSyncsPerSecond: 1e6 / med,
    medianMicrosPerSync: med,
    p90MicrosPerSync: quantile(micros, 0.9),
  };
}

const USAGE = `usage: node dist/bench/engine-bench.js [--sizes 110,1000,10000] [--paths ${PATHS.join(",")}]
       [--batches 9] [--batch-ms 150]`;

function main(argv: readonly string[]): void {
  const { sizes, paths, batches, batchMs } = readBenchArgs(
    argv,
    USAGE,
    { sizes: "string", paths: "string", batches: "string", "batch-ms": "string" },
    (a) => ({
      sizes: a.wholeNumbers("sizes", [110, 1000, 10000], 1),
      paths: a.choices("paths", PATHS, PATHS),
      batches: a.wholeNumber("batches", 9, 1),
      batchMs: a.wholeNumber("batch-ms", 150, 1),
    }),
  );
  const machine = machineInfo();
  console.log(`engine bench: synchronize() runs per second; ${describeMachine(machine)}`);
  console.log(
    `median of ${batches} batches of ~${batchMs} ms after warm-up; state carried between runs (the wake path: the initial state each run)\n`,
  );
  const results: CaseResult[] = [];
  for (const pods of sizes) {
    for (const path of paths) {
      const r = measure(buildCase(pods, path), batches, batchMs);
      results.push(r);
      console.log(`  ${num(pods)} pods, ${path}: ${num(r.medianSyncsPerSecond)} syncs/s`);
    }
  }
  console.log(
    "\n" +
      table(
        ["pods", "path", "syncs/s (median)", "µs/sync (median)", "µs/sync (p90)", "ranked", "outcome"],
        results.map((r) => [
          num(r.pods),
          r.path,
          num(r.medianSyncsPerSecond),
          num(r.medianMicrosPerSync, 1),
          num(r.p90MicrosPerSync, 1),
          num(r.rankedPods),
          r.outcome,
        ]),
      ),
  );
  const file = fileURLToPath(new URL("../../bench/results/engine.json", import.meta.url));
  writeResults(file, { benchmark: "engine", machine, batches, batchMs, results });
  console.log(`\nwrote ${file}`);
}

main(process.argv.slice(2));
