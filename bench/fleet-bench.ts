/**
 * A fleet comparison as an operator runs it: N node-days of a 110-pod node (the trace generator,
 * one seed a node, 10 s steps through its memory episodes, BestEffort replacements held back under
 * MemoryPressure as the kubelet's admission does), written as `evictd record` writes them (lean
 * Summaries, brotli), compared under M configurations (the recorded one with
 * evictionHard.memory.available swept). Measured, each in a process of its own: `evictd compare`
 * with 1 worker and with 2 (wall, CPU over all threads, peak RSS, the speed-up), the same
 * comparison open loop (what the counterfactual changes), and the plan → shards → merge path (each
 * shard a process, as a pod runs it, two at a time as two cores run them); the outputs of 1 and 2 workers and of the
 * pool and the merge are compared byte for byte. The projection to a larger fleet on an Indexed Job
 * is computed from the measured shard times, with its arithmetic printed.
 *
 *   node dist/bench/fleet-bench.js [--nodes 50] [--steps 8640] [--pods 110]
 *        [--thresholds 100Mi,500Mi,1Gi,2Gi] [--fleet-dir DIR] [--skip-plan]
 *
 * The generated fleet is kept in --fleet-dir (default: a directory under the system's temporary
 * directory named by the parameters) and reused by the next run with the same parameters.
 * Writes bench/results/fleet.json.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { leanSummary } from "../src/core/summary/lean-summary.js";
import { createTraceFile } from "../src/formats/scenario/compressed-scenario.js";
import { readPlan } from "../src/fleet/compare-plan.js";
import { REPO_ROOT } from "../test/support/repo-paths.js";
import { writeTrace } from "../tools/trace-generator/generate-trace.js";
import { readBenchArgs } from "./bench-args.js";
import { describeMachine, machineInfo, median, num, quantile, table, writeResults } from "./bench-stats.js";

const USAGE =
  "usage: node dist/bench/fleet-bench.js [--nodes 50] [--steps 8640] [--pods 110] [--thresholds 100Mi,500Mi,1Gi,2Gi] [--fleet-dir DIR] [--skip-plan]";

interface Args {
  readonly nodes: number;
  readonly steps: number;
  readonly pods: number;
  readonly thresholds: readonly string[];
  readonly fleetDir: string;
  readonly skipPlan: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  return readBenchArgs(
    argv,
    USAGE,
    {
      nodes: "string",
      steps: "string",
      pods: "string",
      thresholds: "string",
      "fleet-dir": "string",
      "skip-plan": "boolean",
    },
    (a) => {
      const nodes = a.wholeNumber("nodes", 50, 1);
      const steps = a.wholeNumber("steps", 8640, 10);
      const pods = a.wholeNumber("pods", 110, 1);
      const thresholds = (a.string("thresholds") ?? "100Mi,500Mi,1Gi,2Gi").split(",");
      return {
        nodes,
        steps,
        pods,
        thresholds,
        fleetDir: a.string("fleet-dir") ?? path.join(os.tmpdir(), `evictd-fleet-${nodes}x${steps}x${pods}`),
        skipPlan: a.flag("skip-plan"),
      };
    },
  );
}

const EVICTD = path.join(REPO_ROOT, "bin", "evictd.js");
const MEASURED = fileURLToPath(new URL("./measured-command.js", import.meta.url));
const DAY_MS = 86_400_000;

/** One node-day: seed `i`, as `evictd record` writes it (lean Summaries, brotli). */
async function writeNode(file: string, args: Args, i: number): Promise<number> {
  const writer = createTraceFile(file);
  let evictions = 0;
  let pending: string[] = [];
  let size = 0;
  const info = writeTrace(
    {
      steps: args.steps,
      pods: args.pods,
      seed: i,
      richness: "eviction",
      format: "jsonl",
      admission: "kubelet",
      node: `node-${String(i).padStart(3, "0")}`,
      start: new Date(Date.parse("2025-03-03T00:00:00Z") + (i - 1) * DAY_MS).toISOString(),
      summaryShape: leanSummary,
    },
    (chunk) => {
      pending.push(chunk);
      size += chunk.length;
      if (size > 4 << 20) {
        writer.write(pending.join(""));
        pending = [];
        size = 0;
      }
    },
  );
  writer.write(pending.join(""));
  await writer.close();
  evictions = info.predictedEvictions.length;
  return evictions;
}

/** The fleet, generated once per parameters (a marker file says it is complete). */
async function fleet(
  args: Args,
): Promise<{ files: string[]; generatedSeconds: number | null; evictions: number | null }> {
  const marker = path.join(args.fleetDir, "fleet-complete.json");
  const files = Array.from({ length: args.nodes }, (_, k) =>
    path.join(args.fleetDir, `node-${String(k + 1).padStart(3, "0")}.jsonl.br`),
  );
  if (existsSync(marker) && files.every((f) => existsSync(f))) {
    const m = JSON.parse(readFileSync(marker, "utf8")) as { evictions: number };
    console.log(`fleet: ${files.length} node-days reused from ${args.fleetDir}`);
    return { files, generatedSeconds: null, evictions: m.evictions };
  }
  mkdirSync(args.fleetDir, { recursive: true });
  const t = performance.now();
  let evictions = 0;
  for (const [k, file] of files.entries()) {
    evictions += await writeNode(file, args, k + 1);
    if ((k + 1) % 5 === 0 || k + 1 === files.length)
      console.log(
        `fleet: ${k + 1}/${files.length} node-days generated (${num((performance.now() - t) / 1000)} s)`,
      );
  }
  writeFileSync(marker, JSON.stringify({ nodes: args.nodes, steps: args.steps, pods: args.pods, evictions }));
  return { files, generatedSeconds: (performance.now() - t) / 1000, evictions };
}

interface Measured {
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
  readonly maxRssMiB: number;
  readonly exitCode: number;
  readonly stdout: string;
}

/** `evictd ARGS` in a process of its own, measured there (bench/measured-command.ts). */
function measure(args: readonly string[]): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const usageFile = path.join(os.tmpdir(), `evictd-fleet-usage-${process.pid}-${Date.now()}.json`);
    const started = performance.now();
    const child = spawn(process.execPath, [MEASURED, usageFile, EVICTD, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const out: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.once("error", reject);
    child.once("close", (code) => {
      const wallSeconds = (performance.now() - started) / 1000;
      try {
        const usage = JSON.parse(readFileSync(usageFile, "utf8")) as {
          cpuSeconds: number;
          maxRssKiB: number;
        };
        rmSync(usageFile, { force: true });
        resolve({
          wallSeconds,
          cpuSeconds: usage.cpuSeconds,
          maxRssMiB: usage.maxRssKiB / 1024,
          exitCode: code ?? -1,
          stdout: Buffer.concat(out).toString("utf8"),
        });
      } catch (error) {
        reject(new Error(`evictd ${args.join(" ")} exited ${code} without its usage: ${String(error)}`));
      }
    });
  });
}

/**
 * Every shard of `plan` as a pod runs it (`evictd compare shard`, a process each), `lanes` at a
 * time as that many cores would; each shard's own wall time, CPU and peak RSS.
 */
async function runShards(
  planFile: string,
  shards: number,
  results: string,
  lanes: number,
): Promise<Measured[]> {
  const out: Measured[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    for (let i = next++; i < shards; i = next++) {
      const m = await measure(["compare", "shard", planFile, "--index", String(i), "--results", results]);
      if (m.exitCode !== 0) throw new Error(`shard ${i} exited ${m.exitCode}`);
      out[i] = m;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return out;
}

interface PlanRun {
  readonly shards: number;
  readonly planSeconds: number;
  readonly wallSeconds: number;
  readonly shardSeconds: { readonly median: number; readonly p90: number; readonly max: number };
  readonly shardCpuSeconds: number;
  readonly shardMaxRssMiB: number;
  readonly mergeSeconds: number;
  readonly identicalToPool: boolean;
}

/** `compare plan --group G`, every shard as a process (2 at a time), the merge; against the pool's output. */
async function planRun(
  args: Args,
  sweep: readonly string[],
  group: "cell" | "trace",
  pool: string,
): Promise<PlanRun> {
  const work = path.join(args.fleetDir, `plan-${group}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const planFile = path.join(work, "plan.json");
  const planned = await measure([
    "compare",
    "plan",
    args.fleetDir,
    ...sweep,
    "--group",
    group,
    "--out",
    planFile,
  ]);
  if (planned.exitCode !== 0) throw new Error(`compare plan exited ${planned.exitCode}`);
  const read = await readPlan(planFile);
  if (!read.ok) throw new Error(`plan unreadable: ${JSON.stringify(read.issues)}`);
  const t = performance.now();
  const runs = await runShards(planFile, read.plan.shards.length, path.join(work, "results"), 2);
  const wallSeconds = (performance.now() - t) / 1000;
  const seconds = runs.map((m) => m.wallSeconds);
  const merged = await measure([
    "compare",
    "merge",
    planFile,
    "--results",
    path.join(work, "results"),
    "-o",
    "json",
  ]);
  return {
    shards: read.plan.shards.length,
    planSeconds: planned.wallSeconds,
    wallSeconds,
    shardSeconds: { median: median(seconds), p90: quantile(seconds, 0.9), max: Math.max(...seconds) },
    shardCpuSeconds: median(runs.map((m) => m.cpuSeconds)),
    shardMaxRssMiB: Math.max(...runs.map((m) => m.maxRssMiB)),
    mergeSeconds: merged.wallSeconds,
    identicalToPool: merged.exitCode === 0 && merged.stdout === pool,
  };
}

/**
 * 1,000 node-days × 20 configurations on a 200-pod-at-a-time Indexed Job, from the shards measured
 * here (p90 shard times, so that a wave is as long as its slower pods): a shard per cell takes the
 * one-configuration shard's time; a shard per trace reads the trace once and replays it 20 times,
 * its time split from the two measurements into reading (r) and one configuration's replay (c):
 * cell = r + c, trace = r + M·c for the M configurations measured here.
 */
function projectionOf(
  plans: Readonly<Record<string, PlanRun>>,
  measuredConfigs: number,
): { lines: string[]; figures: Record<string, unknown> } | undefined {
  const cell = plans["cell"];
  const trace = plans["trace"];
  if (cell === undefined || trace === undefined) return undefined;
  const target = { nodeDays: 1000, configs: 20, pods: 200 };
  const c = Math.max(0, (trace.shardSeconds.p90 - cell.shardSeconds.p90) / (measuredConfigs - 1));
  const r = cell.shardSeconds.p90 - c;
  const perCell = { shards: target.nodeDays * target.configs, seconds: cell.shardSeconds.p90 };
  const perTrace = { shards: target.nodeDays, seconds: r + target.configs * c };
  const minutes = (p: { shards: number; seconds: number }): number =>
    (Math.ceil(p.shards / target.pods) * p.seconds) / 60;
  const lines = [
    `a shard per cell: ${perCell.shards} shards / ${target.pods} pods at a time = ${Math.ceil(perCell.shards / target.pods)} waves × ${num(perCell.seconds, 1)} s = ${num(minutes(perCell), 1)} min`,
    `a shard per trace: read r = ${num(r, 1)} s, a configuration c = (${num(trace.shardSeconds.p90, 1)} - ${num(cell.shardSeconds.p90, 1)}) / ${measuredConfigs - 1} = ${num(c, 2)} s; ${perTrace.shards} shards of r + ${target.configs}c = ${num(perTrace.seconds, 1)} s / ${target.pods} at a time = ${Math.ceil(perTrace.shards / target.pods)} waves = ${num(minutes(perTrace), 1)} min`,
    "(pod start-up and image pull not counted)",
  ];
  return {
    lines,
    figures: {
      ...target,
      readSeconds: r,
      configSeconds: c,
      perCell: { ...perCell, minutes: minutes(perCell) },
      perTrace: { ...perTrace, minutes: minutes(perTrace) },
      arithmetic: lines,
    },
  };
}

interface Row {
  readonly config: string;
  readonly evictions: number;
  readonly oomRiskSteps: number;
  readonly pressureHours: number;
  readonly divergedPods: number;
}

function rowsOf(json: string): Row[] {
  const c = JSON.parse(json) as {
    configs: {
      config: string;
      evictions: number;
      oomRiskSteps: number;
      pressureMs: Record<string, number>;
      divergedPods: number;
    }[];
  };
  return c.configs.map((r) => ({
    config: r.config,
    evictions: r.evictions,
    oomRiskSteps: r.oomRiskSteps,
    pressureHours: Object.values(r.pressureMs).reduce((a, b) => a + b, 0) / 3_600_000,
    divergedPods: r.divergedPods,
  }));
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const machine = machineInfo();
  console.log(`fleet benchmark: ${describeMachine(machine)}`);
  const { files, generatedSeconds, evictions } = await fleet(args);
  const bytes = files.reduce((a, f) => a + statSync(f).size, 0);
  console.log(
    `fleet: ${files.length} node-days × ${args.steps} steps × ${args.pods} pods, ${num(bytes / 1e6, 1)} MB (brotli)`,
  );
  const sweep = [
    "--base",
    "recorded",
    "--sweep",
    `evictionHard.memory.available=${args.thresholds.join(",")}`,
  ];
  const compare = (extra: readonly string[]): Promise<Measured> =>
    measure(["compare", args.fleetDir, ...sweep, "-o", "json", ...extra]);

  const one = await compare(["--workers", "1"]);
  console.log(
    `1 worker: ${num(one.wallSeconds, 1)} s wall, ${num(one.cpuSeconds, 1)} s CPU, ${num(one.maxRssMiB)} MiB peak RSS`,
  );
  const two = await compare(["--workers", "2"]);
  console.log(
    `2 workers: ${num(two.wallSeconds, 1)} s wall, ${num(two.cpuSeconds, 1)} s CPU, ${num(two.maxRssMiB)} MiB peak RSS`,
  );
  const openLoop = await compare(["--workers", "2", "--open-loop"]);
  const identicalWorkers = one.exitCode === 0 && one.stdout === two.stdout;
  const speedUp = one.wallSeconds / two.wallSeconds;

  // Plan → shards → merge, cut both ways: a shard per trace × configuration, and per trace.
  const plans: Record<string, PlanRun> = {};
  if (!args.skipPlan)
    for (const group of ["cell", "trace"] as const) {
      const r = await planRun(args, sweep, group, two.stdout);
      plans[group] = r;
      console.log(
        `plan --group ${group} → ${r.shards} shards (processes, 2 at a time): ${num(r.wallSeconds, 1)} s; a shard ${num(r.shardSeconds.median, 1)} s median, ${num(r.shardSeconds.p90, 1)} s p90, ${num(r.shardMaxRssMiB)} MiB peak RSS; merge ${num(r.mergeSeconds, 1)} s; identical to the pool: ${r.identicalToPool ? "yes" : "NO"}`,
      );
    }
  const projection = projectionOf(plans, args.thresholds.length);
  if (projection !== undefined) for (const line of projection.lines) console.log(`projection: ${line}`);

  const whatIf = rowsOf(two.stdout);
  const open = rowsOf(openLoop.stdout);
  console.log(
    `\n${table(
      [
        "configuration",
        "evictions what-if",
        "open loop",
        "pressure h what-if",
        "open loop",
        "OOM-risk steps",
        "diverged pods",
      ],
      whatIf.map((r, i) => [
        r.config,
        String(r.evictions),
        String(open[i]?.evictions ?? ""),
        num(r.pressureHours, 1),
        num(open[i]?.pressureHours ?? 0, 1),
        String(r.oomRiskSteps),
        String(r.divergedPods),
      ]),
    )}`,
  );
  console.log(
    `\nspeed-up 1 → 2 workers: ${num(speedUp, 2)}× (${num(one.wallSeconds, 1)} → ${num(two.wallSeconds, 1)} s); identical outputs: ${identicalWorkers ? "yes" : "NO"}`,
  );
  const out = fileURLToPath(new URL("../../bench/results/fleet.json", import.meta.url));
  writeResults(out, {
    benchmark: "fleet",
    machine,
    parameters: {
      nodeDays: args.nodes,
      stepsPerDay: args.steps,
      interval: "10s",
      pods: args.pods,
      configurations: args.thresholds.map((t) => `evictionHard.memory.available=${t}`),
      generator: "seeds 1..N, richness eviction → lean Summaries, brotli, kubelet admission",
    },
    fleet: {
      bytes,
      generatedSeconds,
      recordedEvictions: evictions,
      files: readdirSync(args.fleetDir).length,
    },
    pool: {
      oneWorker: { wallSeconds: one.wallSeconds, cpuSeconds: one.cpuSeconds, maxRssMiB: one.maxRssMiB },
      twoWorkers: { wallSeconds: two.wallSeconds, cpuSeconds: two.cpuSeconds, maxRssMiB: two.maxRssMiB },
      speedUp,
      identicalOutputs: identicalWorkers,
    },
    plans,
    ...(projection !== undefined ? { projection: projection.figures } : {}),
    whatIfAgainstOpenLoop: whatIf.map((r, i) => ({ ...r, openLoop: open[i] })),
  });
  if (!identicalWorkers || Object.values(plans).some((p) => !p.identicalToPool)) process.exitCode = 1;
}

await main();
