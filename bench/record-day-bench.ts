/**
 * A day of a 110-pod node as a recording: how big, how fast to replay, and whether it decides what
 * the kubelet's full Summaries decide. The trace generator plays out 24 h at 10 s (8,640 samples)
 * of its 110-pod node, the Summaries as a 1.35 kubelet sends them (richness `full`, ~385 KiB each),
 * written as plain JSONL; then the same trace as `evictd record` writes it (each Summary cut down to
 * what the engine reads, core/summary/lean-summary.ts) into `.jsonl.br` and `.jsonl.gz` through the
 * recorder's own writer. Each is replayed by the CLI (`evictd replay FILE --output jsonl`, wall
 * time, one run each), and the step records of the lean replays are compared with the full one's.
 *
 *   node dist/bench/record-day-bench.js [--steps 8640] [--pods 110] [--keep DIR]
 *
 * Needs ~3.5 GB of free disk in the temporary directory for the full trace (removed afterwards).
 * Writes bench/results/record-day.json.
 */
import { spawn } from "node:child_process";
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { leanSummary } from "../src/core/summary/lean-summary.js";
import { toExactJson } from "../src/core/summary/to-exact-json.js";
import { parseJsonExact } from "../src/formats/json/parse-json-exact.js";
import { createTraceFile } from "../src/formats/scenario/compressed-scenario.js";
import { REPO_ROOT } from "../test/support/repo-paths.js";
import { writeTrace } from "../tools/trace-generator/generate-trace.js";
import { readBenchArgs } from "./bench-args.js";
import { describeMachine, machineInfo, num, table, writeResults } from "./bench-stats.js";

const USAGE = "usage: node dist/bench/record-day-bench.js [--steps 8640] [--pods 110] [--keep DIR]";

function parseArgs(argv: readonly string[]): { steps: number; pods: number; keep?: string } {
  return readBenchArgs(argv, USAGE, { steps: "string", pods: "string", keep: "string" }, (a) => {
    const keep = a.string("keep");
    return {
      steps: a.wholeNumber("steps", 8640, 1),
      pods: a.wholeNumber("pods", 110, 1),
      ...(keep !== undefined ? { keep } : {}),
    };
  });
}

/** `evictd replay FILE --output jsonl`: its step records (one string each) and its wall time. */
function replay(file: string): Promise<{ steps: string[]; seconds: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, "bin", "evictd.js"), "replay", file, "--output", "jsonl"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const steps: string[] = [];
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    createInterface({ input: child.stdout }).on("line", (l) => {
      if (l.includes('"type":"step"')) steps.push(l);
    });
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`replay ${file} exited ${code}: ${stderr}`));
      else resolve({ steps, seconds: (performance.now() - started) / 1000, stderr });
    });
  });
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const machine = machineInfo();
  console.log(`record-day benchmark: ${describeMachine(machine)}`);
  const dir = args.keep ?? mkdtempSync(path.join(os.tmpdir(), "evictd-record-day-"));
  const full = path.join(dir, "full.jsonl");
  const files = { brotli: path.join(dir, "lean.jsonl.br"), gzip: path.join(dir, "lean.jsonl.gz") };
  try {
    // 1. The kubelet's full Summaries, as a plain trace.
    let t = performance.now();
    const fd = openSync(full, "w");
    let pending: string[] = [];
    let pendingBytes = 0;
    const info = writeTrace(
      { steps: args.steps, pods: args.pods, seed: 1, richness: "full", format: "jsonl" },
      (s) => {
        pending.push(s);
        pendingBytes += s.length;
        if (pendingBytes > 8 << 20) {
          writeSync(fd, pending.join(""));
          pending = [];
          pendingBytes = 0;
        }
      },
    );
    writeSync(fd, pending.join(""));
    closeSync(fd);
    console.log(
      `generated ${args.steps} samples × ${args.pods} pods: ${num(statSync(full).size / 1e6, 1)} MB in ${num((performance.now() - t) / 1000, 1)} s; ${info.predictedEvictions.length} evictions predicted`,
    );

    // 2. As the recorder writes it: lean Summaries, through the recorder's own writer.
    t = performance.now();
    const writers = { brotli: createTraceFile(files.brotli), gzip: createTraceFile(files.gzip) };
    let n = 0;
    for await (const line of createInterface({ input: createReadStream(full), crlfDelay: Infinity })) {
      if (line === "") continue;
      let out = `${line}\n`;
      if (n > 0) {
        const step = parseJsonExact(line) as Record<string, unknown>;
        out = `${toExactJson({ ...step, summary: leanSummary(step["summary"]) })}\n`;
      }
      writers.brotli.write(out);
      writers.gzip.write(out);
      // zlib runs on the thread pool: wait for it now and then, or its input piles up in memory.
      if (++n % 50 === 0) await Promise.all([writers.brotli.flushed(), writers.gzip.flushed()]);
    }
    await Promise.all([writers.brotli.close(), writers.gzip.close()]);
    console.log(`wrote the lean traces in ${num((performance.now() - t) / 1000, 1)} s`);

    // 3. Replays.
    const reference = await replay(full);
    const rows: string[][] = [];
    const results: Record<string, unknown>[] = [];
    const fullEvictions = reference.steps.filter((s) => s.includes('"evictions":[{')).length;
    rows.push([
      "full JSONL (kubelet's Summaries)",
      num(statSync(full).size / 1e6, 1),
      num(reference.seconds, 1),
      "reference",
      String(fullEvictions),
    ]);
    results.push({
      form: "full.jsonl",
      bytes: statSync(full).size,
      replaySeconds: reference.seconds,
      evictingSteps: fullEvictions,
    });
    for (const [kind, file] of Object.entries(files)) {
      const r = await replay(file);
      const same =
        r.steps.length === reference.steps.length && r.steps.every((s, i) => s === reference.steps[i]);
      const bytes = statSync(file).size;
      rows.push([
        `lean ${path.basename(file)}`,
        num(bytes / 1e6, 1),
        num(r.seconds, 1),
        same ? "equal" : "DIFFERENT",
        String(r.steps.filter((s) => s.includes('"evictions":[{')).length),
      ]);
      results.push({
        form: path.basename(file),
        compression: kind,
        bytes,
        replaySeconds: r.seconds,
        decisionsEqual: same,
      });
    }
    console.log(`\n${table(["trace", "MB on disk", "replay s", "decisions", "steps evicting"], rows)}`);
    const out = fileURLToPath(new URL("../../bench/results/record-day.json", import.meta.url));
    writeResults(out, {
      benchmark: "record-day",
      machine,
      parameters: { steps: args.steps, pods: args.pods, interval: "10s", seed: 1, richness: "full" },
      predictedEvictions: info.predictedEvictions.length,
      results,
    });
    console.log(`\nwritten to ${out}`);
  } finally {
    if (args.keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
