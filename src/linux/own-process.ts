/**
 * The daemon's own resource use as the kernel accounts it, for the Prometheus process metrics a
 * kubelet serves too: CPU time, resident and virtual memory, open file descriptors and their limits,
 * and the start time. Read when asked (a scrape of /metrics), never on a timer, so a daemon nobody
 * scrapes pays nothing for them. The figures cover every thread of the process: the loop thread's
 * heap and CPU are in them as much as the main thread's.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { ProcessFigures, ProcessFiguresSource } from "../app/ports.js";
import { parseBootTimeSeconds, parseProcLimits, parseProcStat, parseProcStatusMemory } from "./procfs.js";

/**
 * USER_HZ, the unit of the times in /proc/<pid>/stat: fixed at 100 by the kernel's ABI on the
 * architectures this daemon runs on (the Prometheus Go client's procfs assumes the same).
 */
const USER_HZ = 100;

export class OwnProcessReader {
  readonly #startTimeSeconds: number;

  private constructor(startTimeSeconds: number) {
    this.#startTimeSeconds = startTimeSeconds;
  }

  /**
   * A reader of this process, or undefined where /proc is not Linux's (the cluster companion may run
   * elsewhere): then the metrics are not served rather than served as zeros.
   */
  static open(): OwnProcessReader | undefined {
    try {
      const stat = parseProcStat(readFileSync("/proc/self/stat", "utf8"));
      const boot = parseBootTimeSeconds(readFileSync("/proc/stat", "utf8"));
      if (stat === undefined || boot === undefined) return undefined;
      const reader = new OwnProcessReader(boot + stat.startTimeTicks / USER_HZ);
      return reader.read() === undefined ? undefined : reader;
    } catch {
      return undefined;
    }
  }

  /** The figures now; undefined if a file could not be read or parsed. */
  read(): ProcessFigures | undefined {
    try {
      const memory = parseProcStatusMemory(readFileSync("/proc/self/status", "utf8"));
      const limits = parseProcLimits(readFileSync("/proc/self/limits", "utf8"));
      if (memory === undefined || limits === undefined) return undefined;
      // The directory's own descriptor is open while it is listed, and listed with the rest.
      const openFds = readdirSync("/proc/self/fd").length - 1;
      // getrusage(RUSAGE_SELF): the same accounting as stat's utime and stime, in microseconds, not ticks.
      const cpu = process.cpuUsage();
      return {
        cpuUserSeconds: cpu.user / 1e6,
        cpuSystemSeconds: cpu.system / 1e6,
        residentBytes: memory.residentBytes,
        virtualBytes: memory.virtualBytes,
        openFds,
        maxFds: limits.openFiles,
        maxVirtualBytes: limits.addressSpaceBytes,
        startTimeSeconds: this.#startTimeSeconds,
      };
    } catch {
      return undefined;
    }
  }
}

/** This process's figures as a source for the metrics, or undefined where they cannot be read. */
export function ownProcessFigures(): ProcessFiguresSource | undefined {
  const reader = OwnProcessReader.open();
  return reader === undefined ? undefined : () => reader.read();
}
