/**
 * The daemon's Prometheus metrics: the kubelet's two eviction metrics under their upstream names,
 * help texts and buckets (so existing kubelet dashboards and alerts work unchanged), plus evictd's
 * own gauges and reaction-latency histogram. Everything is set from data (a SyncReport, an eviction,
 * the pod list); each instance owns its registry, so tests and several daemons never share state.
 * The standard process metrics (process-metrics.ts) come after them, when a reader is given.
 */
import { Counter, Gauge, Histogram, Registry } from "./prom-client-parts.js";
import type { ProcessFiguresSource } from "../app/ports.js";
import { registerProcessMetrics } from "./process-metrics.js";
import type { SyncReport } from "../core/engine/types.js";
import { thresholdQuantity } from "../core/engine/threshold-quantity.js";
import { formatDurationMs } from "../core/time/duration.js";
import type { Threshold } from "../core/model.js";
import { quantityValue } from "../core/quantity.js";
import { NODE_CONDITIONS } from "../core/signals.js";

/** The Prometheus text exposition format the kubelet serves (and this daemon serves). */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/**
 * Upstream's help texts (pkg/kubelet/metrics/metrics.go). The kubelet's metrics library
 * (k8s.io/component-base/metrics) prefixes the stability level to the help of every ALPHA metric
 * when it registers it, so a real kubelet's scrape reads `[ALPHA] Cumulative number of ...`.
 */
export const KUBELET_EVICTIONS_HELP = "[ALPHA] Cumulative number of pod evictions by eviction signal";
export const KUBELET_EVICTION_STATS_AGE_HELP =
  "[ALPHA] Time between when stats are collected, and when pod is evicted based on those stats by eviction signal";

/** Prometheus' DefBuckets, which upstream uses for kubelet_eviction_stats_age_seconds. */
export const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Threshold crossed → SIGTERM takes milliseconds when notifications wake the loop; up to a housekeeping interval when polling. */
export const REACTION_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Pod phases always exported (as 0 when empty) so a dashboard sees every series from the start. */
const POD_PHASES = ["Pending", "Running", "Succeeded", "Failed"] as const;

/** Every metric name this module exports, for documentation and tests. */
export const METRIC_NAMES = {
  evictions: "kubelet_evictions",
  statsAge: "kubelet_eviction_stats_age_seconds",
  signalAvailable: "evictd_signal_available",
  signalCapacity: "evictd_signal_capacity",
  threshold: "evictd_eviction_threshold",
  nodeCondition: "evictd_node_condition",
  pods: "evictd_pods",
  reaction: "evictd_eviction_reaction_seconds",
  manifestErrors: "evictd_manifest_files_with_errors",
  nodeName: "kubelet_node_name",
  loopHealthy: "evictd_loop_healthy",
  lastStats: "evictd_last_stats_timestamp_seconds",
  housekeeping: "evictd_housekeeping_interval_seconds",
  wakeSourcesNotArmed: "evictd_wake_sources_not_armed",
  oomKills: "evictd_oom_kills_total",
  preflightRefusals: "evictd_eviction_preflight_refusals_total",
} as const;

/** Upstream's help for kubelet_node_name (pkg/kubelet/metrics/metrics.go), with its stability prefix. */
export const KUBELET_NODE_NAME_HELP = "[ALPHA] The node's name. The count is always 1.";

/** What a scrape reads from the daemon's state at that moment (not from a synchronize). */
export interface ScrapeState {
  /** /healthz's verdict. */
  readonly healthy: boolean;
  /** The capabilities that say a wake source is not armed. */
  readonly wakeSourcesNotArmed: number;
}

export interface DaemonMetricsOptions {
  /** Where the standard process metrics come from; without it they are not served. */
  readonly process?: ProcessFiguresSource | undefined;
  /**
   * The node's name, served as `kubelet_node_name{node}` 1 as the kubelet does: the
   * kubernetes-mixin joins kubelet_evictions to it to name the node in KubeNodeEviction.
   */
  readonly nodeName?: string | undefined;
  /** The loop's housekeeping interval, so an alert can tell stale stats from a long interval. */
  readonly housekeepingIntervalMs?: number | undefined;
  /**
   * The signals eviction thresholds are set for: kubelet_evictions (and both histograms) start at
   * 0 for each. The kubelet's counter has no sample until its first eviction, and rate() cannot see
   * a series' first sample as an increase, so the mixin's KubeNodeEviction misses a node's first
   * eviction (often its only one); a 0 scraped before it makes the eviction an increase.
   */
  readonly evictionSignals?: readonly string[] | undefined;
}

const graceLabel = formatDurationMs;

export class DaemonMetrics {
  /** This instance's own registry (never prom-client's global one). */
  readonly registry: Registry;
  readonly contentType = PROMETHEUS_CONTENT_TYPE;

  private readonly evictions: Counter<"eviction_signal">;
  private readonly statsAge: Histogram<"eviction_signal">;
  private readonly reaction: Histogram<"eviction_signal">;
  private readonly available: Gauge<"signal">;
  private readonly capacity: Gauge<"signal">;
  private readonly threshold: Gauge<"signal" | "type" | "grace_period">;
  private readonly condition: Gauge<"condition">;
  private readonly pods: Gauge<"phase">;
  private readonly manifestErrors: Gauge;
  private readonly loopHealthy: Gauge;
  private readonly lastStats: Gauge;
  private readonly wakeSourcesNotArmed: Gauge;
  private readonly oomKills: Counter<"namespace" | "pod" | "container">;
  private readonly preflightRefusals: Counter;

  constructor(options: DaemonMetricsOptions = {}) {
    this.registry = new Registry();
    const registers = [this.registry];
    // Upstream names the counter without `_total` (the Go client does not append it).
    this.evictions = new Counter({
      name: METRIC_NAMES.evictions,
      help: KUBELET_EVICTIONS_HELP,
      labelNames: ["eviction_signal"],
      registers,
    });
    this.statsAge = new Histogram({
      name: METRIC_NAMES.statsAge,
      help: KUBELET_EVICTION_STATS_AGE_HELP,
      labelNames: ["eviction_signal"],
      buckets: [...DEFAULT_BUCKETS],
      registers,
    });
    this.available = new Gauge({
      name: METRIC_NAMES.signalAvailable,
      help: "Available amount of each eviction signal at the last synchronize (bytes, inodes or processes).",
      labelNames: ["signal"],
      registers,
    });
    this.capacity = new Gauge({
      name: METRIC_NAMES.signalCapacity,
      help: "Capacity of each eviction signal at the last synchronize (bytes, inodes or processes).",
      labelNames: ["signal"],
      registers,
    });
    this.threshold = new Gauge({
      name: METRIC_NAMES.threshold,
      help: "Each eviction threshold resolved against its signal's capacity: evict when available drops below it.",
      labelNames: ["signal", "type", "grace_period"],
      registers,
    });
    this.condition = new Gauge({
      name: METRIC_NAMES.nodeCondition,
      help: "Node conditions the eviction manager reports (1 = True, 0 = False).",
      labelNames: ["condition"],
      registers,
    });
    this.pods = new Gauge({
      name: METRIC_NAMES.pods,
      help: "Pods managed by the daemon, by phase.",
      labelNames: ["phase"],
      registers,
    });
    this.reaction = new Histogram({
      name: METRIC_NAMES.reaction,
      help: "Seconds from an eviction threshold being crossed (the waking notification or sample) to SIGTERM of the evicted pod.",
      labelNames: ["eviction_signal"],
      buckets: [...REACTION_BUCKETS],
      registers,
    });
    // Every per-signal series starts at zero (see evictionSignals), histograms included: a p99 of
    // reaction times is a rate() of their buckets, which cannot count a series' first sample either.
    for (const signal of new Set(options.evictionSignals ?? [])) {
      this.evictions.inc({ eviction_signal: signal }, 0);
      this.statsAge.zero({ eviction_signal: signal });
      this.reaction.zero({ eviction_signal: signal });
    }
    this.manifestErrors = new Gauge({
      name: METRIC_NAMES.manifestErrors,
      help: "Files in the manifest directory with errors as of its last scan (the files and errors are in /status).",
      registers,
    });
    this.manifestErrors.set(0);
    if (options.nodeName !== undefined) {
      const nodeName = new Gauge({
        name: METRIC_NAMES.nodeName,
        help: KUBELET_NODE_NAME_HELP,
        labelNames: ["node"],
        registers,
      });
      nodeName.set({ node: options.nodeName }, 1);
    }
    this.loopHealthy = new Gauge({
      name: METRIC_NAMES.loopHealthy,
      help: "1 while the eviction loop is healthy (what /healthz answers), 0 once it has failed.",
      registers,
    });
    this.loopHealthy.set(1);
    this.lastStats = new Gauge({
      name: METRIC_NAMES.lastStats,
      help: "Time the newest node figure of the last synchronize was read at (Unix seconds); unchanged while stats cannot be read.",
      registers,
    });
    if (options.housekeepingIntervalMs !== undefined) {
      const housekeeping = new Gauge({
        name: METRIC_NAMES.housekeeping,
        help: "The eviction loop's housekeeping interval in seconds: it synchronizes at least this often.",
        registers,
      });
      housekeeping.set(options.housekeepingIntervalMs / 1000);
    }
    this.wakeSourcesNotArmed = new Gauge({
      name: METRIC_NAMES.wakeSourcesNotArmed,
      help: "Kernel wake sources (memory threshold notifiers, PSI triggers, memory.events watches) the kernel refused to arm: the loop falls back to its housekeeping tick for them.",
      registers,
    });
    this.wakeSourcesNotArmed.set(0);
    this.oomKills = new Counter({
      name: METRIC_NAMES.oomKills,
      help: "Containers the kernel OOM-killed (their cgroup's oom_kill count rose as they died), by pod and container.",
      labelNames: ["namespace", "pod", "container"],
      registers,
    });
    this.preflightRefusals = new Counter({
      name: METRIC_NAMES.preflightRefusals,
      help: "Evictions a PodDisruptionBudget refused, by the eviction's own answer or a dry run's (watch --enforce with the preflight): the next pod in the ranking was considered instead.",
      registers,
    });
    for (const c of NODE_CONDITIONS) this.condition.set({ condition: c }, 0);
    for (const phase of POD_PHASES) this.pods.set({ phase }, 0);
    if (options.process !== undefined) registerProcessMetrics(this.registry, options.process);
  }

  /**
   * Takes in one synchronize: stats ages (as upstream observes them in an acting run, at
   * `observedAt` when given), the signal
   * gauges, the thresholds resolved against this run's capacities, and the node conditions.
   * Evictions are not counted here: upstream counts an eviction once evictPod returns, so the daemon
   * calls `recordEviction` after the kill. A run whose stats could not be read keeps the last values.
   */
  observeSync(report: SyncReport, thresholds: readonly Threshold[], observedAt?: number): void {
    // Upstream observes time.Since(the figures' time) in synchronize, after its read; the engine's
    // `seconds` are against the run's `now`, taken before the read (negative for a fresh read).
    for (const { signal, seconds, time } of report.statsAge)
      this.statsAge.observe(
        { eviction_signal: signal },
        observedAt === undefined ? seconds : (observedAt - time) / 1000,
      );
    for (const c of NODE_CONDITIONS)
      this.condition.set({ condition: c }, report.conditions.includes(c) ? 1 : 0);
    if (report.statsUnavailable) return;

    let newest: number | undefined;
    for (const o of report.observations.values())
      if (o.time !== undefined && (newest === undefined || o.time > newest)) newest = o.time;
    if (newest !== undefined) this.lastStats.set(newest / 1000);
    this.available.reset();
    this.capacity.reset();
    for (const [signal, o] of report.observations) {
      this.available.set({ signal }, Number(o.available));
      this.capacity.set({ signal }, Number(o.capacity));
    }
    this.threshold.reset();
    for (const t of thresholds) {
      if (t.operator === "" || t.value === undefined) continue; // inert containerfs mirror
      const capacity = report.observations.get(t.signal)?.capacity;
      // A percentage means nothing without the signal's capacity; a quantity is absolute.
      if (t.value.kind === "percentage" && capacity === undefined) continue;
      const value = quantityValue(thresholdQuantity(t.value, capacity ?? 0n));
      this.threshold.set(
        {
          signal: t.signal,
          type: t.gracePeriodMs === 0 ? "hard" : "soft",
          grace_period: graceLabel(t.gracePeriodMs),
        },
        Number(value),
      );
    }
  }

  /** One pod evicted (kill attempted); `reactionSeconds` when the crossing time is known. */
  recordEviction(signal: string, reactionSeconds?: number): void {
    this.evictions.inc({ eviction_signal: signal });
    if (reactionSeconds !== undefined) this.reaction.observe({ eviction_signal: signal }, reactionSeconds);
  }

  /** Replaces the pod-phase gauge with a count of `pods` by phase. */
  setPods(pods: readonly { readonly phase: string }[]): void {
    const counts = new Map<string, number>(POD_PHASES.map((p) => [p, 0]));
    for (const p of pods) counts.set(p.phase, (counts.get(p.phase) ?? 0) + 1);
    this.pods.reset();
    for (const [phase, n] of counts) this.pods.set({ phase }, n);
  }

  /** A container's processes OOM-killed by the kernel (`kills` of them). */
  recordOomKill(
    kill: { readonly namespace: string; readonly pod: string; readonly container: string },
    kills = 1,
  ): void {
    this.oomKills.inc({ namespace: kill.namespace, pod: kill.pod, container: kill.container }, kills);
  }

  /** One eviction a preflight said a PodDisruptionBudget would refuse. */
  recordPreflightRefusal(): void {
    this.preflightRefusals.inc();
  }

  /** What a scrape reads from the daemon's state at that moment. */
  setScrapeState(state: ScrapeState): void {
    this.loopHealthy.set(state.healthy ? 1 : 0);
    this.wakeSourcesNotArmed.set(state.wakeSourcesNotArmed);
  }

  /** The number of manifest files with errors, as of the last scan. */
  setManifestErrors(files: number): void {
    this.manifestErrors.set(files);
  }

  /** The registry in Prometheus text format. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
