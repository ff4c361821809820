/**
 * The standard Prometheus process metrics (CPU, memory, file descriptors, start time) under the
 * names, help texts and types the Prometheus Go client gives them, which a kubelet's /metrics
 * serves: dashboards and alerts written for one work for the other, and an SRE can watch the
 * daemon's own footprint where it runs. Values are read from the figures source once per scrape.
 */
import { Counter, Gauge, type Registry } from "./prom-client-parts.js";

/** What the metrics show of the process; the daemon's reader is linux/own-process.ts. */
export interface ProcessFigures {
  readonly cpuUserSeconds: number;
  readonly cpuSystemSeconds: number;
  readonly residentBytes: number;
  readonly virtualBytes: number;
  readonly openFds: number;
  readonly maxFds: number;
  readonly maxVirtualBytes: number;
  readonly startTimeSeconds: number;
}

/** The figures now, or undefined if they cannot be read (the metrics then keep their last values). */
export type ProcessFiguresSource = () => ProcessFigures | undefined;

/** The metric names, for documentation and tests. */
export const PROCESS_METRIC_NAMES = {
  cpu: "process_cpu_seconds_total",
  cpuUser: "process_cpu_user_seconds_total",
  cpuSystem: "process_cpu_system_seconds_total",
  resident: "process_resident_memory_bytes",
  virtual: "process_virtual_memory_bytes",
  virtualMax: "process_virtual_memory_max_bytes",
  openFds: "process_open_fds",
  maxFds: "process_max_fds",
  startTime: "process_start_time_seconds",
} as const;

/** Registers the process metrics on `registry`, read from `source` when it is scraped. */
export function registerProcessMetrics(registry: Registry, source: ProcessFiguresSource): void {
  const registers = [registry];
  // Read at once too, so a scrape never shows zeros for figures that could not be read at that moment.
  let current: ProcessFigures | undefined = source();
  // The registry collects its metrics one by one in the order they were registered: the first
  // reads the process once for the whole scrape, the others show that same reading.
  const counter = (name: string, help: string, value: (f: ProcessFigures) => number, first = false): void => {
    new Counter({
      name,
      help,
      registers,
      collect() {
        if (first) current = source() ?? current;
        if (current === undefined) return;
        this.reset();
        this.inc(value(current));
      },
    });
  };
  const gauge = (name: string, help: string, value: (f: ProcessFigures) => number): void => {
    new Gauge({
      name,
      help,
      registers,
      collect() {
        if (current !== undefined) this.set(value(current));
      },
    });
  };
  counter(
    PROCESS_METRIC_NAMES.cpu,
    "Total user and system CPU time spent in seconds.",
    (f) => f.cpuUserSeconds + f.cpuSystemSeconds,
    true,
  );
  counter(PROCESS_METRIC_NAMES.cpuUser, "Total user CPU time spent in seconds.", (f) => f.cpuUserSeconds);
  counter(
    PROCESS_METRIC_NAMES.cpuSystem,
    "Total system CPU time spent in seconds.",
    (f) => f.cpuSystemSeconds,
  );
  gauge(PROCESS_METRIC_NAMES.resident, "Resident memory size in bytes.", (f) => f.residentBytes);
  gauge(PROCESS_METRIC_NAMES.virtual, "Virtual memory size in bytes.", (f) => f.virtualBytes);
  gauge(
    PROCESS_METRIC_NAMES.virtualMax,
    "Maximum amount of virtual memory available in bytes.",
    (f) => f.maxVirtualBytes,
  );
  gauge(PROCESS_METRIC_NAMES.openFds, "Number of open file descriptors.", (f) => f.openFds);
  gauge(PROCESS_METRIC_NAMES.maxFds, "Maximum number of open file descriptors.", (f) => f.maxFds);
  gauge(
    PROCESS_METRIC_NAMES.startTime,
    "Start time of the process since unix epoch in seconds.",
    (f) => f.startTimeSeconds,
  );
}
