/**
 * What the runtime holds before evictd runs anything, measured as the overhead bench measures the
 * daemon: the same node binary, read from outside through /proc over the same settle and window.
 * Two reference processes: `node` with a 1 s timer and nothing loaded (the runtime's floor), and
 * the same with one idle worker thread under the loop thread's V8 limits (the floor of a daemon
 * whose wake-to-kill path has an isolate of its own, as `evictd run`'s has). The daemon with no
 * pods, less the second, is what evictd's modules and its own work cost; the daemon with pods, less
 * the daemon with none, is what the pods cost.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";
import { LOOP_THREAD_RESOURCE_LIMITS } from "../src/daemon/loop-thread/loop-thread.js";
import { median } from "./bench-stats.js";
import { cpuPercent, sampleProcess } from "./proc-sampler.js";

export interface FloorProcess {
  readonly name: string;
  readonly description: string;
  /** A CommonJS script for `node -e`. */
  readonly script: string;
}

const IDLE = "setInterval(() => {}, 1000);";

export const FLOOR_PROCESSES: readonly FloorProcess[] = [
  { name: "runtime", description: "node, a 1 s timer, nothing loaded", script: IDLE },
  {
    name: "runtime + idle worker",
    description: "the same with one idle worker thread under the loop thread's V8 limits",
    script:
      `const { Worker } = require("node:worker_threads");` +
      `new Worker(${JSON.stringify(IDLE)}, { eval: true, resourceLimits: ${JSON.stringify(LOOP_THREAD_RESOURCE_LIMITS)} });` +
      IDLE,
  },
];

export interface FloorResult {
  readonly name: string;
  readonly description: string;
  readonly windowSeconds: number;
  /** Median of the RSS (VmRSS) samples over the window, MiB. */
  readonly rssMedianMiB: number;
  /** CPU over the window / its length, % of one core. */
  readonly cpuPercentAverage: number;
  readonly threads: number;
}

/** Starts `reference`, lets it settle, samples it every `everyMs` for `windowMs`, and stops it. */
export async function measureFloor(
  reference: FloorProcess,
  settleMs: number,
  windowMs: number,
  everyMs: number,
  ticksPerSecond: number,
  signal?: AbortSignal,
): Promise<FloorResult> {
  const child = spawn(process.execPath, ["-e", reference.script], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  // A process that could not start ends in "error", which rejects this: it is awaited below either way.
  const exited = once(child, "exit").catch(() => undefined);
  try {
    const pid = child.pid;
    if (pid === undefined) throw new Error("the process did not start");
    await delay(settleMs, undefined, signal === undefined ? {} : { signal });
    const samples = await sampleProcess(pid, windowMs, everyMs, signal);
    const first = samples[0];
    const last = samples[samples.length - 1];
    if (first === undefined || last === undefined || samples.length < 2) throw new Error("too few samples");
    return {
      name: reference.name,
      description: reference.description,
      windowSeconds: (last.atMs - first.atMs) / 1000,
      rssMedianMiB: median(samples.map((s) => s.rssKiB / 1024)),
      cpuPercentAverage: cpuPercent(first, last, ticksPerSecond),
      threads: last.threads,
    };
  } catch (e) {
    throw new Error(
      `${reference.name}: ${e instanceof Error ? e.message : String(e)}${stderr ? ` (${stderr.trim()})` : ""}`,
    );
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
}
