/**
 * `evictd import prometheus` as an operator runs it: a 110-pod node's hours (the trace generator,
 * written with the exporters' own series by tools/trace-openmetrics, backfilled into a real
 * Prometheus with promtool) imported with the default one-hour chunks. Prints, and writes to
 * bench/results/import.json: the import's wall time, CPU and peak RSS (a process of its own), the
 * samples each of a chunk's queries loads (Prometheus' own count, `stats=all`) against the server's
 * default limit of 50,000,000 per query, and what a week at 10 s projects to.
 *
 * Both ends side by side: a small node (20 pods) and a full one (110, the kubelet's default maxPods).
 *
 *   node dist/bench/import-bench.js [--hours 2] [--pods 20,110] [--seed 1]
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { importSelectors, podScopedSelectors } from "../src/app/import/import-queries.js";
import { REPO_ROOT } from "../test/support/repo-paths.js";
import { startPrometheus } from "../test/support/prometheus-server.js";
import { generateTrace } from "../tools/trace-generator/generate-trace.js";
import { traceToOpenMetrics } from "../tools/trace-openmetrics/trace-to-openmetrics.js";
import { readBenchArgs } from "./bench-args.js";
import { describeMachine, machineInfo, num, table, writeResults } from "./bench-stats.js";

const USAGE = "usage: node dist/bench/import-bench.js [--hours 2] [--pods 20,110] [--seed 1]";
const EVICTD = path.join(REPO_ROOT, "bin", "evictd.js");
const MEASURED = fileURLToPath(new URL("./measured-command.js", import.meta.url));
const STEP_MS = 10_000;
const HOUR_MS = 3_600_000;
/** Prometheus' default --query.max-samples. */
const DEFAULT_MAX_SAMPLES = 50_000_000;

const args = readBenchArgs(
  process.argv.slice(2),
  USAGE,
  { hours: "string", pods: "string", seed: "string" },
  (a) => ({
    hours: a.wholeNumber("hours", 2, 1),
    pods: a.wholeNumbers("pods", [20, 110], 1),
    seed: a.wholeNumber("seed", 1, 0),
  }),
);

interface Measured {
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
  readonly maxRssMiB: number;
  readonly exitCode: number;
  readonly stderr: string;
}

function measure(cliArgs: readonly string[]): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const usageFile = path.join(os.tmpdir(), `evictd-import-usage-${process.pid}-${Date.now()}.json`);
    const started = performance.now();
    const child = spawn(process.execPath, [MEASURED, usageFile, EVICTD, ...cliArgs], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
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
          stderr,
        });
      } catch (error) {
        reject(new Error(`evictd exited ${code} without its usage: ${String(error)}\n${stderr}`));
      }
    });
  });
}

/** The samples Prometheus loaded for `selector[windowMs]` at `endMs` (its own count). */
async function samplesLoaded(
  url: string,
  selector: string,
  endMs: number,
  windowMs: number,
): Promise<{ series: number; samples: number }> {
  const res = await fetch(`${url}/api/v1/query`, {
    method: "POST",
    body: new URLSearchParams({
      query: `${selector}[${windowMs}ms]`,
      time: String(endMs / 1000),
      stats: "all",
    }),
  });
  const body = (await res.json()) as {
    status: string;
    error?: string;
    data: { result: unknown[]; stats?: { samples?: { totalQueryableSamples?: number } } };
  };
  if (body.status !== "success") throw new Error(`${selector}: ${body.error}`);
  return {
    series: body.data.result.length,
    samples: body.data.stats?.samples?.totalQueryableSamples ?? Number.NaN,
  };
}

interface PerQuery {
  readonly query: string;
  readonly series: number;
  readonly samples: number;
}

interface SizeResult {
  readonly pods: number;
  readonly steps: number;
  readonly openMetrics: { readonly samples: number; readonly mib: number };
  readonly backfillSeconds: number;
  readonly import: { readonly wallSeconds: number; readonly cpuSeconds: number; readonly maxRssMiB: number };
  readonly importChunk10m: {
    readonly wallSeconds: number;
    readonly cpuSeconds: number;
    readonly maxRssMiB: number;
  };
  readonly perChunkQuery: readonly PerQuery[];
  readonly largestQuery: PerQuery;
  readonly chunkSamples: number;
  readonly weekProjectionMinutes: number;
}

async function measureSize(pods: number): Promise<SizeResult> {
  const steps = args.hours * (HOUR_MS / STEP_MS);
  const work = mkdtempSync(path.join(os.tmpdir(), "evictd-import-bench-"));
  try {
    let t = performance.now();
    const generated = generateTrace({
      steps,
      pods,
      seed: args.seed,
      format: "jsonl",
      richness: "eviction",
    });
    const header = JSON.parse(generated.text.slice(0, generated.text.indexOf("\n"))) as {
      start: string;
      config: unknown;
      node: { metadata: { name: string } };
    };
    const openMetrics = traceToOpenMetrics(generated.text, {});
    const omMiB = Buffer.byteLength(openMetrics) / 2 ** 20;
    let omSamples = 0;
    for (let i = 0; i < openMetrics.length;) {
      const next = openMetrics.indexOf("\n", i);
      const end = next < 0 ? openMetrics.length : next;
      if (end > i && openMetrics[i] !== "#") omSamples++;
      i = end + 1;
    }
    console.error(
      `# ${args.hours} h of a ${pods}-pod node: ${num(steps)} steps, ${num(omSamples)} samples, ${num(omMiB, 1)} MiB of OpenMetrics (${num((performance.now() - t) / 1000, 1)} s)`,
    );
    t = performance.now();
    const server = await startPrometheus({ openMetrics });
    const backfillSeconds = (performance.now() - t) / 1000;
    console.error(`# backfilled and started in ${num(backfillSeconds, 1)} s`);
    try {
      const start = Date.parse(header.start);
      const end = start + (steps - 1) * STEP_MS;
      const node = header.node.metadata.name;
      const configFile = path.join(work, "kubelet-config.json");
      writeFileSync(configFile, JSON.stringify(header.config));
      const output = path.join(work, "imported.jsonl.br");
      const run = await measure([
        "import",
        "prometheus",
        "--url",
        server.url,
        "--node",
        node,
        "--from",
        new Date(start).toISOString(),
        "--to",
        new Date(end).toISOString(),
        "--config",
        configFile,
        "-o",
        output,
      ]);
      if (run.exitCode !== 0) throw new Error(`import exited ${run.exitCode}:\n${run.stderr}`);
      // The same with 10-minute chunks: a chunk's series and samples are what the import holds.
      const small = await measure([
        "import",
        "prometheus",
        "--url",
        server.url,
        "--node",
        node,
        "--from",
        new Date(start).toISOString(),
        "--to",
        new Date(end).toISOString(),
        "--config",
        configFile,
        "--chunk",
        "10m",
        "-o",
        output,
      ]);
      if (small.exitCode !== 0)
        throw new Error(`import --chunk 10m exited ${small.exitCode}:\n${small.stderr}`);

      // One chunk's queries, as the import makes them (the default 1 h chunk, 20 s lookback).
      const o = {
        node,
        nodeLabel: "node",
        nodeExporterLabel: "instance",
        nodefsMountpoint: "/",
        imagefsMountpoint: "/var/lib/containerd",
      };
      const q = importSelectors(o);
      const chunkEnd = start + HOUR_MS - STEP_MS;
      const windowMs = HOUR_MS - STEP_MS + 20_000;
      const info = await samplesLoaded(server.url, q.podInfo, chunkEnd, windowMs);
      const names = (
        (await (
          await fetch(`${server.url}/api/v1/series`, {
            method: "POST",
            body: new URLSearchParams({
              "match[]": q.podInfo,
              start: String(start / 1000),
              end: String(chunkEnd / 1000),
            }),
          })
        ).json()) as { data: { pod: string }[] }
      ).data.map((l) => l.pod);
      const scoped = podScopedSelectors(names);
      const queries: [string, string][] = [
        ["machine memory", q.machineMemory],
        ["working set", q.workingSet],
        ["usage", q.usage],
        ["pods limit", q.podsLimit],
        ["fs avail", q.fsAvail],
        ["fs size", q.fsSize],
        ["fs files free", q.fsFilesFree],
        ["fs files", q.fsFiles],
        ["pids", q.pids],
        ["pid max", q.pidMax],
        ["pod info", q.podInfo],
        ["phase", scoped.phase],
        ["qos", scoped.qos],
        ["container info", scoped.containerInfo],
        ["requests", scoped.requests],
        ["limits", scoped.limits],
      ];
      const perQuery: { query: string; series: number; samples: number }[] = [];
      for (const [name, selector] of queries) {
        const r = name === "pod info" ? info : await samplesLoaded(server.url, selector, chunkEnd, windowMs);
        perQuery.push({ query: name, ...r });
      }
      const largest = perQuery.reduce((a, b) => (b.samples > a.samples ? b : a));
      const chunkSamples = perQuery.reduce((s, r) => s + r.samples, 0);
      const chunks = args.hours;
      const weekChunks = 168;
      const weekSeconds = (run.wallSeconds / chunks) * weekChunks;
      console.log(`# ${pods} pods: one 1 h chunk's queries`);
      console.log(
        table(
          ["query", "series", "samples loaded"],
          perQuery.map((r) => [r.query, num(r.series), num(r.samples)]),
        ),
      );
      return {
        pods,
        steps,
        openMetrics: { samples: omSamples, mib: omMiB },
        backfillSeconds,
        import: { wallSeconds: run.wallSeconds, cpuSeconds: run.cpuSeconds, maxRssMiB: run.maxRssMiB },
        importChunk10m: {
          wallSeconds: small.wallSeconds,
          cpuSeconds: small.cpuSeconds,
          maxRssMiB: small.maxRssMiB,
        },
        perChunkQuery: perQuery,
        largestQuery: largest,
        chunkSamples,
        weekProjectionMinutes: weekSeconds / 60,
      };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const results: SizeResult[] = [];
for (const pods of args.pods) results.push(await measureSize(pods));
console.log(
  `\n# import prometheus, ${args.hours} h at 10 s, default 1 h chunks (${describeMachine(machineInfo())})`,
);
console.log(
  table(
    [
      "pods",
      "steps",
      "wall s",
      "CPU s",
      "peak RSS MiB",
      "RSS, 10m chunks",
      "s per chunk",
      "a week, min",
      "largest query (samples)",
      "% of 50M",
      "a chunk, samples",
    ],
    results.map((r) => [
      String(r.pods),
      num(r.steps),
      num(r.import.wallSeconds, 1),
      num(r.import.cpuSeconds, 1),
      num(r.import.maxRssMiB),
      num(r.importChunk10m.maxRssMiB),
      num(r.import.wallSeconds / args.hours, 2),
      num(r.weekProjectionMinutes, 1),
      `${r.largestQuery.query} ${num(r.largestQuery.samples)}`,
      num((100 * r.largestQuery.samples) / DEFAULT_MAX_SAMPLES, 2),
      num(r.chunkSamples),
    ]),
  ),
);
console.log(
  "a week = 168 chunks at the measured seconds per chunk; Prometheus' default --query.max-samples is 50,000,000 per query",
);
writeResults(path.join(REPO_ROOT, "bench", "results", "import.json"), {
  machine: machineInfo(),
  hours: args.hours,
  defaultMaxSamples: DEFAULT_MAX_SAMPLES,
  sizes: results,
});
