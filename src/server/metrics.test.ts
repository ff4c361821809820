// DaemonMetrics: kubelet-compatible eviction metrics and evictd's gauges, rendered from data.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { register as globalRegistry } from "prom-client";
import type { Observation, SyncReport } from "../core/engine/types.js";
import type { Signal, Threshold } from "../core/model.js";
import { parseQuantity } from "../core/quantity.js";
import { DaemonMetrics } from "./metrics.js";

const Mi = 1024n * 1024n;
const Gi = 1024n * Mi;

function report(over: Partial<SyncReport> = {}): SyncReport {
  return {
    now: 1_700_000_000_000,
    ran: true,
    statsUnavailable: false,
    observations: new Map<Signal, Observation>(),
    thresholdsMet: [],
    awaitingGrace: [],
    staleStats: [],
    conditions: [],
    evictions: [],
    refused: [],
    statsAge: [],
    updateNotifiers: false,
    outcome: "no resources are starved",
    ...over,
  };
}

const qty = (text: string) => ({ kind: "quantity" as const, quantity: parseQuantity(text) });
const THRESHOLDS: Threshold[] = [
  {
    id: "hard/memory.available",
    signal: "memory.available",
    operator: "LessThan",
    value: qty("100Mi"),
    gracePeriodMs: 0,
    origin: "hard",
  },
  {
    id: "soft/memory.available",
    signal: "memory.available",
    operator: "LessThan",
    value: qty("300Mi"),
    gracePeriodMs: 90_000,
    origin: "soft",
  },
  {
    id: "hard/nodefs.available",
    signal: "nodefs.available",
    operator: "LessThan",
    value: { kind: "percentage", percentage: Math.fround(Math.fround(10) / 100), text: "10%" },
    gracePeriodMs: 0,
    origin: "hard",
  },
  {
    id: "hard/imagefs.available",
    signal: "imagefs.available",
    operator: "LessThan",
    value: { kind: "percentage", percentage: Math.fround(Math.fround(15) / 100), text: "15%" },
    gracePeriodMs: 0,
    origin: "hard",
  },
  // Upstream's empty containerfs copy: inert, never exported.
  {
    id: "containerfs/hard/nodefs.available",
    signal: "containerfs.available",
    operator: "",
    gracePeriodMs: 0,
    origin: "containerfs",
  },
];

const lines = (text: string) => text.split("\n");

describe("kubelet metrics", () => {
  test("kubelet_evictions counts per signal, with upstream's name and help text", async () => {
    const m = new DaemonMetrics();
    m.recordEviction("memory.available");
    m.recordEviction("nodefs.available");
    m.recordEviction("memory.available");
    const text = await m.render();
    const at = lines(text).indexOf(
      "# HELP kubelet_evictions [ALPHA] Cumulative number of pod evictions by eviction signal",
    );
    assert.ok(at >= 0, text);
    assert.deepEqual(lines(text).slice(at, at + 4), [
      "# HELP kubelet_evictions [ALPHA] Cumulative number of pod evictions by eviction signal",
      "# TYPE kubelet_evictions counter",
      'kubelet_evictions{eviction_signal="memory.available"} 2',
      'kubelet_evictions{eviction_signal="nodefs.available"} 1',
    ]);
  });

  test("no eviction yet: the counter is declared with no samples", async () => {
    const text = await new DaemonMetrics().render();
    assert.ok(lines(text).includes("# TYPE kubelet_evictions counter"));
    assert.ok(!lines(text).some((l) => l.startsWith("kubelet_evictions{")));
  });

  test("with the thresholds' signals given, each starts at 0, so rate() sees the first eviction", async () => {
    const m = new DaemonMetrics({
      evictionSignals: ["memory.available", "nodefs.available", "memory.available"],
    });
    const before = lines(await m.render()).filter((l) => l.startsWith("kubelet_evictions{"));
    assert.deepEqual(before, [
      'kubelet_evictions{eviction_signal="memory.available"} 0',
      'kubelet_evictions{eviction_signal="nodefs.available"} 0',
    ]);
    m.recordEviction("memory.available");
    assert.ok(lines(await m.render()).includes('kubelet_evictions{eviction_signal="memory.available"} 1'));
  });

  test("kubelet_eviction_stats_age_seconds: histogram with Prometheus' default buckets", async () => {
    const m = new DaemonMetrics();
    m.observeSync(
      report({
        statsAge: [
          { signal: "memory.available", seconds: 0.2, time: 0 },
          { signal: "memory.available", seconds: 3, time: 0 },
        ],
      }),
      [],
    );
    const text = lines(await m.render());
    assert.ok(
      text.includes(
        "# HELP kubelet_eviction_stats_age_seconds [ALPHA] Time between when stats are collected, and when pod is evicted based on those stats by eviction signal",
      ),
    );
    assert.ok(text.includes("# TYPE kubelet_eviction_stats_age_seconds histogram"));
    const want: [string, number][] = [
      ["0.005", 0],
      ["0.01", 0],
      ["0.025", 0],
      ["0.05", 0],
      ["0.1", 0],
      ["0.25", 1],
      ["0.5", 1],
      ["1", 1],
      ["2.5", 1],
      ["5", 2],
      ["10", 2],
      ["+Inf", 2],
    ];
    const buckets = text.filter((l) => l.startsWith("kubelet_eviction_stats_age_seconds_bucket"));
    assert.deepEqual(
      buckets,
      want.map(
        ([le, n]) =>
          `kubelet_eviction_stats_age_seconds_bucket{le="${le}",eviction_signal="memory.available"} ${n}`,
      ),
    );
    assert.ok(
      text.includes('kubelet_eviction_stats_age_seconds_sum{eviction_signal="memory.available"} 3.2'),
    );
    assert.ok(
      text.includes('kubelet_eviction_stats_age_seconds_count{eviction_signal="memory.available"} 2'),
    );
  });
});

describe("evictd metrics", () => {
  test("reaction latency: millisecond buckets, observed only when the crossing time is known", async () => {
    const m = new DaemonMetrics();
    m.recordEviction("memory.available", 0.003);
    m.recordEviction("pid.available");
    const text = lines(await m.render());
    const buckets = text.filter((l) => l.startsWith("evictd_eviction_reaction_seconds_bucket"));
    assert.deepEqual(
      buckets.map((l) => /le="([^"]+)"/.exec(l)?.[1]),
      [
        "0.001",
        "0.0025",
        "0.005",
        "0.01",
        "0.025",
        "0.05",
        "0.1",
        "0.25",
        "0.5",
        "1",
        "2.5",
        "5",
        "10",
        "+Inf",
      ],
    );
    assert.ok(
      text.includes(
        'evictd_eviction_reaction_seconds_bucket{le="0.0025",eviction_signal="memory.available"} 0',
      ),
    );
    assert.ok(
      text.includes(
        'evictd_eviction_reaction_seconds_bucket{le="0.005",eviction_signal="memory.available"} 1',
      ),
    );
    assert.ok(
      !text.some(
        (l) => l.includes('eviction_signal="pid.available"') && l.startsWith("evictd_eviction_reaction"),
      ),
    );
    assert.ok(text.includes('kubelet_evictions{eviction_signal="pid.available"} 1'));
  });

  test("signal gauges, thresholds resolved against capacity, node conditions", async () => {
    const m = new DaemonMetrics();
    const observations = new Map<Signal, Observation>([
      ["memory.available", { available: 250n * Mi, capacity: 2n * Gi }],
      ["nodefs.available", { available: 40n * Gi, capacity: 100n * Gi }],
    ]);
    m.observeSync(report({ observations, conditions: ["MemoryPressure"] }), THRESHOLDS);
    const text = lines(await m.render());
    for (const want of [
      'evictd_signal_available{signal="memory.available"} 262144000',
      'evictd_signal_capacity{signal="memory.available"} 2147483648',
      'evictd_signal_available{signal="nodefs.available"} 42949672960',
      'evictd_signal_capacity{signal="nodefs.available"} 107374182400',
      'evictd_eviction_threshold{signal="memory.available",type="hard",grace_period="0s"} 104857600',
      'evictd_eviction_threshold{signal="memory.available",type="soft",grace_period="1m30s"} 314572800',
      // float32(0.1) = 13421773 / 2^27, times 100Gi = 800 × 13421773, exactly.
      'evictd_eviction_threshold{signal="nodefs.available",type="hard",grace_period="0s"} 10737418400',
      'evictd_node_condition{condition="MemoryPressure"} 1',
      'evictd_node_condition{condition="DiskPressure"} 0',
      'evictd_node_condition{condition="PIDPressure"} 0',
    ]) {
      assert.ok(text.includes(want), `missing ${want}`);
    }
    // A percentage with no capacity observed cannot be resolved; the inert mirror is never shown.
    assert.ok(!text.some((l) => l.includes('signal="imagefs.available"')));
    assert.ok(!text.some((l) => l.includes('signal="containerfs.available"')));
  });

  test("each run replaces the gauges; a run without stats keeps the last values", async () => {
    const m = new DaemonMetrics();
    m.observeSync(
      report({
        observations: new Map([["pid.available", { available: 100n, capacity: 4096n }]]),
        conditions: ["PIDPressure"],
      }),
      [],
    );
    m.observeSync(report({ statsUnavailable: true, ran: false }), []);
    let text = lines(await m.render());
    assert.ok(text.includes('evictd_signal_available{signal="pid.available"} 100'));
    assert.ok(
      text.includes('evictd_node_condition{condition="PIDPressure"} 0'),
      "conditions follow every run",
    );

    m.observeSync(
      report({ observations: new Map([["memory.available", { available: 1n * Gi, capacity: 2n * Gi }]]) }),
      [],
    );
    text = lines(await m.render());
    assert.ok(!text.some((l) => l.includes('signal="pid.available"')));
    assert.ok(text.includes('evictd_signal_available{signal="memory.available"} 1073741824'));
  });

  test("pods by phase: every phase present, counts replaced", async () => {
    const m = new DaemonMetrics();
    m.setPods([{ phase: "Running" }, { phase: "Running" }, { phase: "Failed" }, { phase: "Unknown" }]);
    m.setPods([{ phase: "Running" }, { phase: "Failed" }, { phase: "Failed" }]);
    const pods = lines(await m.render()).filter((l) => l.startsWith("evictd_pods{"));
    assert.deepEqual(pods, [
      'evictd_pods{phase="Pending"} 0',
      'evictd_pods{phase="Running"} 1',
      'evictd_pods{phase="Succeeded"} 0',
      'evictd_pods{phase="Failed"} 2',
    ]);
  });

  test("instances own their registries; the global default registry stays empty", async () => {
    const a = new DaemonMetrics();
    const b = new DaemonMetrics();
    a.recordEviction("memory.available");
    assert.ok((await a.render()).includes('kubelet_evictions{eviction_signal="memory.available"} 1'));
    assert.ok(!(await b.render()).includes("kubelet_evictions{"));
    assert.deepEqual(globalRegistry.getMetricsAsArray(), []);
  });

  test("kubelet_eviction_stats_age_seconds in a daemon: the age when observed, never negative for a fresh read", async () => {
    // The run's now (the wake) came before the read, so the engine's age is negative; the daemon
    // observes after deciding, 4 ms after the figures were read, as upstream's time.Since does.
    const m = new DaemonMetrics();
    const readAt = 1_000_000;
    m.observeSync(
      report({ statsAge: [{ signal: "memory.available", seconds: -0.003, time: readAt }] }),
      [],
      readAt + 4,
    );
    // And figures reused for 1.85 s are 1.85 s old, whatever the run's now.
    m.observeSync(
      report({ statsAge: [{ signal: "memory.available", seconds: 0, time: readAt }] }),
      [],
      readAt + 1850,
    );
    const text = lines(await m.render());
    assert.ok(
      text.includes('kubelet_eviction_stats_age_seconds_sum{eviction_signal="memory.available"} 1.854'),
      text.join("\n"),
    );
    assert.ok(
      text.includes(
        'kubelet_eviction_stats_age_seconds_bucket{le="0.005",eviction_signal="memory.available"} 1',
      ),
    );
  });
});

describe("what alerts and the kubernetes-mixin read", () => {
  test("kubelet_node_name{node} 1 with upstream's help, only when the node is named", async () => {
    const text = await new DaemonMetrics({ nodeName: "node-a" }).render();
    assert.match(text, /^# HELP kubelet_node_name \[ALPHA\] The node's name\. The count is always 1\.$/m);
    assert.match(text, /^kubelet_node_name\{node="node-a"\} 1$/m);
    assert.doesNotMatch(await new DaemonMetrics().render(), /kubelet_node_name/);
  });

  test("loop health and wake sources not armed are what the last scrape saw", async () => {
    const m = new DaemonMetrics();
    assert.match(await m.render(), /^evictd_loop_healthy 1$/m);
    assert.match(await m.render(), /^evictd_wake_sources_not_armed 0$/m);
    m.setScrapeState({ healthy: false, wakeSourcesNotArmed: 2 });
    const text = await m.render();
    assert.match(text, /^evictd_loop_healthy 0$/m);
    assert.match(text, /^evictd_wake_sources_not_armed 2$/m);
  });

  test("the last stats time is the newest observation's, kept through a run without stats", async () => {
    const m = new DaemonMetrics({ housekeepingIntervalMs: 10_000 });
    assert.match(await m.render(), /^evictd_housekeeping_interval_seconds 10$/m);
    const observations = new Map<Signal, Observation>([
      ["memory.available", { available: 1n * Gi, capacity: 4n * Gi, time: 1_700_000_000_500 }],
      ["nodefs.available", { available: 1n * Gi, capacity: 4n * Gi, time: 1_699_999_990_000 }],
    ]);
    m.observeSync(report({ observations }), []);
    assert.match(await m.render(), /^evictd_last_stats_timestamp_seconds 1700000000\.5$/m);
    m.observeSync(report({ statsUnavailable: true }), []);
    assert.match(await m.render(), /^evictd_last_stats_timestamp_seconds 1700000000\.5$/m);
  });
});

describe("process metrics (the Prometheus Go client's names, as a kubelet serves them)", () => {
  const figures = {
    cpuUserSeconds: 12.5,
    cpuSystemSeconds: 3.25,
    residentBytes: 78452 * 1024,
    virtualBytes: 1161932 * 1024,
    openFds: 23,
    maxFds: 20000,
    maxVirtualBytes: 2 ** 64 - 1,
    startTimeSeconds: 1795869225.37,
  };

  test("each with the Go client's help text and type, read once per scrape", async () => {
    let reads = 0;
    const m = new DaemonMetrics({
      process: () => {
        reads++;
        return { ...figures, openFds: figures.openFds + reads };
      },
    });
    const before = reads;
    const text = lines(await m.render());
    assert.equal(reads, before + 1);
    const block = (name: string): string[] => {
      const at = text.indexOf(`# HELP ${name} ${HELP[name]}`);
      assert.ok(at >= 0, `${name}:\n${text.join("\n")}`);
      return text.slice(at + 1, at + 3);
    };
    const HELP: Record<string, string> = {
      process_cpu_seconds_total: "Total user and system CPU time spent in seconds.",
      process_cpu_user_seconds_total: "Total user CPU time spent in seconds.",
      process_cpu_system_seconds_total: "Total system CPU time spent in seconds.",
      process_resident_memory_bytes: "Resident memory size in bytes.",
      process_virtual_memory_bytes: "Virtual memory size in bytes.",
      process_virtual_memory_max_bytes: "Maximum amount of virtual memory available in bytes.",
      process_open_fds: "Number of open file descriptors.",
      process_max_fds: "Maximum number of open file descriptors.",
      process_start_time_seconds: "Start time of the process since unix epoch in seconds.",
    };
    assert.deepEqual(block("process_cpu_seconds_total"), [
      "# TYPE process_cpu_seconds_total counter",
      "process_cpu_seconds_total 15.75",
    ]);
    assert.deepEqual(block("process_cpu_user_seconds_total")[1], "process_cpu_user_seconds_total 12.5");
    assert.deepEqual(block("process_cpu_system_seconds_total")[1], "process_cpu_system_seconds_total 3.25");
    assert.deepEqual(block("process_resident_memory_bytes"), [
      "# TYPE process_resident_memory_bytes gauge",
      "process_resident_memory_bytes 80334848",
    ]);
    assert.equal(block("process_virtual_memory_bytes")[1], "process_virtual_memory_bytes 1189818368");
    // Every metric of one scrape shows the same reading: the read made for this scrape.
    assert.equal(block("process_open_fds")[1], `process_open_fds ${figures.openFds + reads}`);
    assert.equal(block("process_max_fds")[1], "process_max_fds 20000");
    assert.equal(block("process_start_time_seconds")[1], "process_start_time_seconds 1795869225.37");
    // `unlimited`: Prometheus reads the value as the same float the Go client writes (1.8446744073709552e+19).
    const max = block("process_virtual_memory_max_bytes")[1]?.split(" ")[1];
    assert.equal(Number(max), 1.8446744073709552e19);
  });

  test("a scrape whose read fails shows the last reading, not zeros", async () => {
    let fail = false;
    const m = new DaemonMetrics({ process: () => (fail ? undefined : figures) });
    await m.render();
    fail = true;
    const text = lines(await m.render());
    assert.ok(text.includes("process_resident_memory_bytes 80334848"), text.join("\n"));
    assert.ok(text.includes("process_cpu_seconds_total 15.75"), text.join("\n"));
  });

  test("without a reader, none of them is served", async () => {
    const text = await new DaemonMetrics().render();
    assert.ok(!text.includes("process_"), text);
  });
});
