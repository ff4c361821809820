/**
 * What the loop's every synchronize leaves behind, the same for `evictd run` and `evictd watch`:
 * the metrics, the evictions /status lists, one human line per eviction in the log, and a line in
 * the decision log (the replay step record).
 */
import type { LoopStepData } from "../app/loop/loop-step-data.js";
import type { LoggerPort } from "../app/ports.js";
import type { EvictionRecord } from "../app/node-view/snapshot.js";
import type { FilesystemLayout, Threshold } from "../core/model.js";
import { ReportCollector, type ReportData } from "../app/report/report-data.js";
import { LoopHealth, type HealthVerdict } from "../app/node-view/loop-health.js";
import { CLEANUP_TIMEOUT_MS } from "../app/loop/eviction-loop.js";
import { LIVE_WINDOW_MS } from "../app/report/live-page-window.js";
import { isSignal, SIGNALS } from "../core/signals.js";
import type { DecisionLog } from "./decision-log.js";
import { daemonStepRecord, loopStepOutcome, roundTimings } from "./decision-record.js";
import type { DaemonMetrics } from "./metrics.js";

export interface StepJournalOptions {
  readonly metrics: DaemonMetrics;
  readonly log: LoggerPort;
  readonly thresholds: readonly Threshold[];
  readonly startedAt: number;
  /** The decision log (JSON lines); none when absent. */
  readonly decisionLog?: DecisionLog;
  /** What an eviction is called in the log: "evicted", "would evict" (shadow mode). */
  readonly verb?: string;
  /** The node's filesystem layout, for the live page's thresholds (default single). */
  readonly layout?: FilesystemLayout;
  /** The eviction settings the live page shows (max pod grace, transition period). */
  readonly config?: {
    readonly maxPodGracePeriodSeconds: number;
    readonly pressureTransitionPeriodMs: number;
  };
  /** The loop's period, which /healthz measures its progress against (default 10 s). */
  readonly housekeepingIntervalMs?: number;
}

export class StepJournal {
  readonly evictions: EvictionRecord[] = [];
  readonly evictionCounts: Record<string, number> = {};
  private readonly o: StepJournalOptions;
  /** The last {@link LIVE_WINDOW_MS} of steps, for the page at `/`. */
  readonly #live: ReportCollector;
  readonly #health: LoopHealth;

  constructor(options: StepJournalOptions) {
    this.o = options;
    this.#live = new ReportCollector(
      "live",
      options.config ?? { maxPodGracePeriodSeconds: 0, pressureTransitionPeriodMs: 0 },
    );
    this.#health = new LoopHealth({
      startedAt: options.startedAt,
      housekeepingIntervalMs: options.housekeepingIntervalMs ?? 10_000,
      cleanupTimeoutMs: CLEANUP_TIMEOUT_MS,
    });
  }

  /** Whether the loop's steps have kept coming, with good reads (for /healthz). */
  health(now: number): HealthVerdict {
    return this.#health.verdict(now);
  }

  /** The last minutes of steps as the report's data (built when asked for: the page renders it). */
  history(): ReportData {
    return this.#live.finish([]);
  }

  record(step: LoopStepData): void {
    const { metrics, log } = this.o;
    this.#health.observe({
      now: step.now,
      ...(step.readError !== undefined ? { readError: step.readError } : {}),
      evicted: step.evictions.some((e) => e.kill !== undefined),
    });
    this.#live.step(loopStepOutcome(step, this.o.startedAt), {
      layout: this.o.layout ?? "single",
      thresholds: this.o.thresholds,
    });
    this.#live.dropBefore(step.now - LIVE_WINDOW_MS);
    metrics.observeSync(step.report, this.o.thresholds, step.decidedAt);
    for (const e of step.evictions) {
      const reactionMs = e.reactionMs;
      metrics.recordEviction(e.eviction.signal, reactionMs === undefined ? undefined : reactionMs / 1000);
      this.evictionCounts[e.eviction.signal] = (this.evictionCounts[e.eviction.signal] ?? 0) + 1;
      this.evictions.push({
        at: step.now,
        pod: e.eviction.pod.key,
        signal: e.eviction.signal,
        gracePeriodSeconds: e.effectiveGracePeriodSeconds,
        message: e.eviction.message,
        ...(reactionMs !== undefined ? { reactionMs } : {}),
        ...(e.sinceBelowMs !== undefined ? { sinceBelowMs: e.sinceBelowMs } : {}),
        killFailed: e.kill === undefined,
      });
      const why = isSignal(e.eviction.signal)
        ? `${SIGNALS[e.eviction.signal].resource}, ${e.eviction.signal}`
        : `local storage, ${e.eviction.signal}`;
      const verb = e.kill === undefined ? "failed to evict" : (this.o.verb ?? "evicted");
      // Dated by the loop's clock at SIGTERM: a line written late (this thread busy) is not dated late.
      const at = e.kill?.terminatedAt ?? step.decidedAt;
      const since = e.sinceBelowMs;
      const window =
        since !== undefined && reactionMs !== undefined
          ? ` (last seen below its threshold ${since.toFixed(1)} ms before SIGTERM)`
          : "";
      (log.at?.(at) ?? log).info(
        {
          pod: e.eviction.pod.key,
          signal: e.eviction.signal,
          grace: e.effectiveGracePeriodSeconds,
          reactionMs,
          ...(since !== undefined ? { sinceBelowMs: since } : {}),
          wake: step.wake.reason,
          ...(step.timings !== undefined ? { timings: roundTimings(step.timings) } : {}),
          ...(e.killError !== undefined ? { err: e.killError } : {}),
        },
        `${verb} ${e.eviction.pod.key} (${why}) with ${e.effectiveGracePeriodSeconds}s grace${reactionMs !== undefined ? `, ${reactionMs.toFixed(1)} ms after ${step.wake.reason}${window}` : ""}: ${e.eviction.message.trim()}`,
      );
    }
    this.o.decisionLog?.append(daemonStepRecord(step, this.o.startedAt));
  }
}
