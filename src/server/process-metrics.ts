/**
 * The standard Prometheus process metrics (CPU, memory, file descriptors, start time) under the
 * names, help texts and types the Prometheus Go client gives them, which a kubelet's /metrics
 * serves: dashboards and alerts written for one work for the other, and an SRE can watch the
 * daemon's own footprint where it runs. Values are read from the figures source once per scrape.
 */
import type { ProcessFigures, ProcessFiguresSource } from "../app/ports.js";
import { Counter, Gauge, type Registry } from "./prom-client-parts.js";

interface ProcessMetric {
  readonly name: string;
  readonly help: string;
  readonly type: "counter" | "gauge";
  readonly value: (f: ProcessFigures) => number;
}

/** The Go client's process collector, metric by metric. */
const PROCESS_METRICS: readonly ProcessMetric[] = [
  {
    name: "process_cpu_seconds_total",
    help: "Total user and system CPU time spent in seconds.",
    type: "counter",
    value: (f) => f.cpuUserSeconds + f.cpuSystemSeconds,
  },
  {
    name: "process_cpu_user_seconds_total",
    help: "Total user CPU time spent in seconds.",
    type: "counter",
    value: (f) => f.cpuUserSeconds,
  },
  {
    name: "process_cpu_system_seconds_total",
    help: "Total system CPU time spent in seconds.",
    type: "counter",
    value: (f) => f.cpuSystemSeconds,
  },
  {
    name: "process_resident_memory_bytes",
    help: "Resident memory size in bytes.",
    type: "gauge",
    value: (f) => f.residentBytes,
  },
  {
    name: "process_virtual_memory_bytes",
    help: "Virtual memory size in bytes.",
    type: "gauge",
    value: (f) => f.virtualBytes,
  },
  {
    name: "process_virtual_memory_max_bytes",
    help: "Maximum amount of virtual memory available in bytes.",
    type: "gauge",
    value: (f) => f.maxVirtualBytes,
  },
  {
    name: "process_open_fds",
    help: "Number of open file descriptors.",
    type: "gauge",
    value: (f) => f.openFds,
  },
  {
    name: "process_max_fds",
    help: "Maximum number of open file descriptors.",
    type: "gauge",
    value: (f) => f.maxFds,
  },
  {
    name: "process_start_time_seconds",
    help: "Start time of the process since unix epoch in seconds.",
    type: "gauge",
    value: (f) => f.startTimeSeconds,
  },
];

/**
 * Registers the process metrics on `registry`, read from `source` when it is scraped. A scrape
 * whose read fails shows the last reading, and the first is made now, so no scrape shows zeros.
 */
export function registerProcessMetrics(registry: Registry, source: ProcessFiguresSource): void {
  let current = source();
  PROCESS_METRICS.forEach((m, i) => {
    // The registry collects its metrics one by one in the order they were registered: the first
    // reads the process once for the whole scrape, the others show that same reading.
    const refresh = i === 0;
    const options = { name: m.name, help: m.help, registers: [registry] };
    if (m.type === "counter") {
      new Counter({
        ...options,
        collect() {
          if (refresh) current = source() ?? current;
          if (current === undefined) return;
          this.reset();
          this.inc(m.value(current));
        },
      });
    } else {
      new Gauge({
        ...options,
        collect() {
          if (refresh) current = source() ?? current;
          if (current !== undefined) this.set(m.value(current));
        },
      });
    }
  });
}
