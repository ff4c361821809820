/**
 * Where `evictd watch`'s loop reads the node: the kubelet's Summary API at every read, or with
 * `--stats cgroups` memory from the kubelet's cgroups at every read (node-local-stats-port.ts) and
 * disk, inode and PID figures from a Summary kept current in the background (latest-summary.ts),
 * which must have been read once before the first sample can be.
 */
import { summaryStatsPort } from "../loop/summary-stats-port.js";
import type { ClockPort, LoggerPort, StatsPort } from "../ports.js";
import type { ClusterNodePort } from "./cluster-node-port.js";
import { LatestSummary } from "./latest-summary.js";
import type { ApiPodInfo } from "./node-local-summary.js";
import { nodeLocalStatsPort } from "./node-local-stats-port.js";
import type { NodeMemoryPort } from "./node-memory-port.js";
import { untilAnswered, type UntilAnsweredOptions } from "./until-answered.js";

export interface WatchStatsSourceOptions {
  readonly api: Pick<ClusterNodePort, "summary" | "describe">;
  /** `--stats cgroups`: the memory reader over the kubelet's cgroups. */
  readonly memory?: NodeMemoryPort;
  /** The API's pods on the node, which name the pods the cgroups hold (with `memory`). */
  readonly pods: () => readonly ApiPodInfo[];
  /** How often the background Summary is read (the loop's period). */
  readonly intervalMs: number;
  readonly clock: ClockPort;
  readonly log: LoggerPort;
  /** The watch's stop, which ends a read under way. */
  readonly signal: AbortSignal;
}

export class WatchStatsSource {
  /** The loop's stats port. */
  readonly port: StatsPort;
  readonly #latest: LatestSummary | undefined;
  readonly #signal: AbortSignal;

  constructor(o: WatchStatsSourceOptions) {
    const { api, memory, clock } = o;
    this.#signal = o.signal;
    if (memory === undefined) {
      this.#latest = undefined;
      this.port = summaryStatsPort({ read: () => api.summary(o.signal), source: api.describe, clock });
      return;
    }
    const latest = new LatestSummary({
      read: (signal) => api.summary(signal),
      intervalMs: o.intervalMs,
      clock,
      log: o.log,
    });
    this.#latest = latest;
    this.port = nodeLocalStatsPort({
      memory,
      summary: () => latest.value,
      pods: o.pods,
      source: `${memory.describe} and the Summary API (${api.describe})`,
      clock,
    });
  }

  /**
   * Before the first sample: with `--stats cgroups`, the Summary read once, waited for while the
   * cluster does not answer (until-answered.ts). False when the watch was stopped first.
   */
  async ready(startup: UntilAnsweredOptions): Promise<boolean> {
    const latest = this.#latest;
    if (latest === undefined) return true;
    const read = await untilAnswered(
      "reading the Summary API",
      () => latest.refresh(this.#signal).then(() => true),
      startup,
    );
    return read !== undefined;
  }

  /** Keeps the background Summary current until `signal` aborts (`--stats cgroups`; else nothing to do). */
  run(signal: AbortSignal): Promise<void> {
    return this.#latest?.run(signal) ?? Promise.resolve();
  }
}
