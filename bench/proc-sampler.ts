/**
 * Resource usage of one process as the kernel accounts it: CPU time from /proc/<pid>/stat and
 * memory from /proc/<pid>/status (stat parsed by the daemon's own `linux/procfs.ts`), read from outside (the measured process does nothing extra),
 * sampled on a fixed cadence and reduced to one CPU share per interval.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseProcStat } from "../src/linux/procfs.js";
import { nowMs } from "./bench-stats.js";

/** The kernel's USER_HZ: utime/stime are counted in these ticks (`getconf CLK_TCK`, 100 on Linux). */
export function clockTicksPerSecond(): number {
  const r = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" });
  const n = Number(r.stdout.trim());
  return r.status === 0 && Number.isInteger(n) && n > 0 ? n : 100;
}

/** One reading of a process. */
export interface ProcSample {
  /** Monotonic wall time of the reading (ms). */
  readonly atMs: number;
  /** utime + stime of the process itself, all its threads, dead ones included (ticks). */
  readonly cpuTicks: number;
  /** cutime + cstime: CPU of children it has waited for (ticks). */
  readonly childCpuTicks: number;
  readonly rssKiB: number;
  /** Peak resident set size since the process started. */
  readonly hwmKiB: number;
  readonly threads: number;
}

/** `VmRSS:     1234 kB` → 1234. */
function statusField(status: string, name: string): number {
  const m = new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status);
  if (m === null) throw new Error(`no ${name} in /proc/<pid>/status`);
  return Number(m[1]);
}

/** Reads /proc/<pid>/stat and /proc/<pid>/status; throws once the process is gone. */
export function readProcSample(pid: number): ProcSample {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const atMs = nowMs();
  const stat = parseProcStat(text);
  if (stat === undefined) throw new Error(`/proc/${pid}/stat does not parse: ${text}`);
  return {
    atMs,
    cpuTicks: stat.cpuTicks,
    childCpuTicks: stat.childCpuTicks,
    rssKiB: statusField(status, "VmRSS"),
    hwmKiB: statusField(status, "VmHWM"),
    threads: statusField(status, "Threads"),
  };
}

/** CPU used between two readings as a percentage of one core. */
export function cpuPercent(from: ProcSample, to: ProcSample, ticksPerSecond: number): number {
  const seconds = (to.atMs - from.atMs) / 1000;
  return seconds <= 0 ? Number.NaN : ((to.cpuTicks - from.cpuTicks) / ticksPerSecond / seconds) * 100;
}

/**
 * Reads `pid` every `everyMs` for `durationMs` (the first reading at once, later ones on a fixed
 * grid so that timer lateness does not accumulate). Stops early, returning what it has, when
 * `signal` aborts.
 */
export async function sampleProcess(
  pid: number,
  durationMs: number,
  everyMs: number,
  signal?: AbortSignal,
): Promise<ProcSample[]> {
  const samples: ProcSample[] = [readProcSample(pid)];
  const start = samples[0]?.atMs ?? nowMs();
  for (let k = 1; k * everyMs <= durationMs && signal?.aborted !== true; k++) {
    const wait = start + k * everyMs - nowMs();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    samples.push(readProcSample(pid));
  }
  return samples;
}
