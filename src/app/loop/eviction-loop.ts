/**
 * The daemon's eviction loop: the kubelet's control loop around the pure engine. It wakes on the
 * housekeeping timer or at once on a kernel notification, reads stats and has the engine decide
 * (how a wake reads and decides is wake-decision.ts), runs node-level reclaim when asked, kills the
 * chosen pod, then waits (bounded) for that pod's processes to be gone before looking again, so
 * memory still held by a dying pod is never a reason to evict another one. Every decision goes out
 * as data through `onStep`.
 */
import { effectiveGracePeriod, INITIAL_STATE, synchronize } from "../../core/engine/index.js";
import type {
  EngineState,
  Eviction,
  ReclaimFunction,
  ReclaimOutcome,
  SyncReport,
} from "../../core/engine/types.js";
import type { EvictionConfig, FilesystemLayout, Threshold } from "../../core/model.js";
import {
  EvictionBlockedError,
  type ClockPort,
  type EvictionUrgency,
  type FailedPodStatus,
  type KillResult,
  type LoggerPort,
  type PodsPort,
  type StatsPort,
  type StatsSample,
  type Wake,
  type WakePort,
} from "../ports.js";
import { pickOnBounds } from "./bounded-memory-pick.js";
import { evictFirstAllowed, type RefusedEviction, type SentEviction } from "./eviction-preflight.js";
import { decideOnWake, readForWake } from "./wake-decision.js";

/** Upstream waits up to 30 s for evicted pods to be cleaned up (podCleanupTimeout). */
export const CLEANUP_TIMEOUT_MS = 30_000;
/** Upstream polls every 1 s; a shorter poll lets the loop look again as soon as memory is freed. */
export const CLEANUP_POLL_MS = 50;

/** The threshold of a rehearsal ({@link EvictionLoop.rehearse}): memory.available < 100% holds on any node with memory in use. */
const REHEARSAL_THRESHOLD: Threshold = {
  id: "rehearsal/memory.available",
  signal: "memory.available",
  operator: "LessThan",
  value: { kind: "percentage", percentage: 1, text: "100%" },
  gracePeriodMs: 0,
  origin: "hard",
};

export interface EvictionOutcome {
  readonly eviction: Eviction;
  readonly effectiveGracePeriodSeconds: number;
  readonly kill: KillResult | undefined;
  readonly killError?: string;
  /** Wake (threshold crossing noticed) → SIGTERM, in ms. */
  readonly reactionMs: number | undefined;
  /**
   * The last look that saw the signal below its threshold → SIGTERM, in ms: the crossing happened
   * between that look and the wake, so the reaction was at least {@link reactionMs} and at most
   * this. A loop that could not look for a while (stopped, starved of CPU) shows it here.
   */
  readonly sinceBelowMs?: number;
}

/** Where one step's time went, in ms (when the clock can time it). */
export interface StepTimings {
  /** Reading the stats (and decoding them). */
  readonly readMs: number;
  /** The engine's synchronize, with node-level reclaim and the read after it when those ran. */
  readonly decideMs: number;
  /** Sending the kills, with a preflight's questions and the next pod's kill after a refusal. */
  readonly killMs: number;
}

export interface LoopStep {
  readonly wake: Wake;
  readonly now: number;
  readonly sample: StatsSample | undefined;
  /** Why the stats could not be read (the step decided without a summary). */
  readonly readError?: string;
  /** The stats read again after node-level reclaim, when reclaim ran. */
  readonly afterReclaim?: StatsSample;
  readonly report: SyncReport;
  readonly evictions: readonly EvictionOutcome[];
  /**
   * Pods the engine picked whose eviction a preflight, or the eviction itself, refused (a
   * PodDisruptionBudget), in ranking order: `report` is the decision made without them.
   */
  readonly refusedByPreflight?: readonly RefusedEviction[];
  readonly state: EngineState;
  /** The clock when the engine had decided (before the kills): when its observations were taken in. */
  readonly decidedAt: number;
  readonly timings?: StepTimings;
}

export interface EvictionLoopOptions {
  readonly config: EvictionConfig;
  readonly layout: FilesystemLayout;
  readonly housekeepingIntervalMs: number;
  readonly stats: StatsPort;
  readonly pods: PodsPort;
  readonly wake: WakePort;
  readonly clock: ClockPort;
  readonly log: LoggerPort;
  /** Called after every synchronize with everything it decided. */
  readonly onStep?: (step: LoopStep) => void;
  /**
   * Takes in each step's sample after its kills, before `onStep`: the last working set read for
   * each pod, for the views (app/node-view/last-pod-memory.ts). Never read by a decision.
   */
  readonly podMemory?: { note(sample: StatsSample | undefined): void };
  readonly cleanupTimeoutMs?: number;
  readonly cleanupPollMs?: number;
  /**
   * After an eviction and its cleanup, look again at once (default, as upstream). Off when kills
   * do nothing (dry run, shadow mode): nothing would have changed, and the loop would spin.
   */
  readonly resyncAfterEviction?: boolean;
}

export class EvictionLoop {
  private state: EngineState = INITIAL_STATE;
  private readonly o: EvictionLoopOptions;
  /** Per signal, when a step last read it and found none of its thresholds met. */
  private readonly seenBelowAt = new Map<string, number>();

  constructor(options: EvictionLoopOptions) {
    this.o = options;
  }

  get engineState(): EngineState {
    return this.state;
  }

  /**
   * One step, as the kubelet's synchronize: the wake's read and the engine's decision on it
   * (wake-decision.ts), node-level reclaim when the engine asks for it, the evictions (the first
   * pods allowed to go, eviction-preflight.ts), and the step recorded; returns what happened.
   */
  async runOnce(wake: Wake): Promise<LoopStep> {
    const { stats, pods, clock, log, config, layout } = this.o;
    const now = clock.now();
    const before = this.state;
    const t0 = clock.elapsed?.();
    const read = await readForWake(wake, { stats, log });
    const t1 = clock.elapsed?.();
    const decision = await decideOnWake(
      read,
      {
        activePods: pods.activePods(),
        decide: (summary, activePods) => synchronize(config, before, { now, summary, activePods, layout }),
      },
      { stats, log },
    );
    const decided = decision.result;
    let reclaimed: ReclaimOutcome | undefined;
    let afterReclaim: StatsSample | undefined;
    let settled: { readonly state: EngineState; readonly report: SyncReport };
    if (decided.kind === "reclaim") {
      ({ outcome: reclaimed, after: afterReclaim } = await this.reclaim(decided.functions));
      settled = decided.resume(reclaimed);
    } else {
      settled = decided;
    }
    this.state = settled.state;
    const decidedReport = settled.report;
    const t2 = clock.elapsed?.();
    const decidedAt = clock.now();
    const preflight = pods.preflight?.bind(pods);
    const sent = await evictFirstAllowed(decidedReport, {
      ...(preflight !== undefined
        ? {
            preflight: (e: Eviction) =>
              preflight(
                e.pod,
                effectiveGracePeriod(e.gracePeriodSeconds, e.pod),
                evictedStatus(e),
                evictionUrgency(decidedReport, e),
              ),
          }
        : {}),
      evict: (e) => this.evict(e, wake, evictionUrgency(decidedReport, e)),
      decideWithout: async (refused) => {
        const again = await decision.redecideWithout(refused);
        // After node-level reclaim, its outcome resumes the new decision as it did the first; without
        // reclaim the first time, none now: the thresholds and the sample are the same.
        const resettled = again.kind === "done" ? again : again.resume(reclaimed ?? { summary: undefined });
        this.state = resettled.state;
        return resettled.report;
      },
    });
    let report = sent.report;
    const refusedByPreflight = sent.refused;
    const evictions = [...sent.outcomes];
    this.noteSignalsBelow(report, now);
    const t3 = clock.elapsed?.();
    let sample = decision.sample;
    // Refined only where the pending kills' statuses can still be written again.
    const restate = pods.restate?.bind(pods);
    const killed = evictions.some((e) => e.kill !== undefined);
    const refined = restate === undefined ? undefined : await decision.refine(report, killed);
    if (refined !== undefined && restate !== undefined) {
      // The statuses the kills will write carry the messages of the fresher read.
      for (const e of refined.report.evictions) restate(e.pod, evictedStatus(e));
      sample = refined.sample;
      this.state = refined.state;
      report = refined.report;
      evictions.forEach((e, i) => {
        const eviction = refined.report.evictions[i];
        if (eviction !== undefined) evictions[i] = { ...e, eviction };
      });
    }
    // After the kills: registering a memcg threshold waits for an RCU grace period in the kernel
    // (tens of milliseconds), and the pod that must go should not wait for that.
    if (sample !== undefined && report.updateNotifiers) this.o.wake.rearm(sample);
    const readError = decision.readError;
    const step: LoopStep = {
      wake,
      now,
      sample,
      ...(readError !== undefined ? { readError } : {}),
      ...(afterReclaim !== undefined ? { afterReclaim } : {}),
      report,
      evictions,
      ...(refusedByPreflight.length > 0 ? { refusedByPreflight } : {}),
      state: this.state,
      decidedAt,
      ...(t0 !== undefined && t1 !== undefined && t2 !== undefined && t3 !== undefined
        ? { timings: { readMs: t1 - t0, decideMs: t2 - t1, killMs: t3 - t2 } }
        : {}),
    };
    this.o.podMemory?.note(sample);
    this.o.onStep?.(step);
    return step;
  }

  /**
   * A memory wake's path, once, acting on nothing: a memory read, the bounded pick under a threshold
   * every node crosses (memory.available < 100%: the ranking, the picked pod's full read and the
   * decision after it all run), the result dropped and the engine's state untouched. Run when pods
   * start, so that the first real wake runs code V8 has compiled and types it has seen (the
   * first wake after start otherwise spends milliseconds compiling: docs/benchmarks.md).
   */
  async rehearse(): Promise<void> {
    const { stats, pods, clock, config, layout } = this.o;
    const readPods = stats.refreshPods?.bind(stats);
    if (readPods === undefined) return;
    const sample = await stats.collect("memory");
    const rehearsal: EvictionConfig = { ...config, thresholds: [REHEARSAL_THRESHOLD] };
    const activePods = pods.activePods();
    const now = clock.now();
    await pickOnBounds(sample, {
      decide: (summary) => synchronize(rehearsal, INITIAL_STATE, { now, summary, activePods, layout }),
      readPods,
      readAll: () => Promise.resolve(undefined),
    });
  }

  /** Records, for each signal this step read, whether it was below all its thresholds then. */
  private noteSignalsBelow(report: SyncReport, now: number): void {
    if (!report.ran || report.statsUnavailable) return;
    const met = new Set<string>(report.thresholdsMet.map((t) => t.signal));
    for (const signal of report.observations.keys()) if (!met.has(signal)) this.seenBelowAt.set(signal, now);
  }

  /**
   * Node-level reclaim as the engine asked (dead containers, unused images; a failure is logged
   * and passed on), and the read the engine resumes from after it.
   */
  private async reclaim(
    functions: readonly ReclaimFunction[],
  ): Promise<{ outcome: ReclaimOutcome; after: StatsSample | undefined }> {
    const { stats, pods, log } = this.o;
    const errors: Partial<Record<ReclaimFunction, string>> = {};
    for (const fn of functions) {
      try {
        await (fn === "containers" ? pods.containerGC() : pods.imageGC());
      } catch (e) {
        errors[fn] = String(e);
        log.warn(
          { err: String(e), fn },
          "Eviction manager: unexpected error when attempting to reduce resource pressure",
        );
      }
    }
    let after: StatsSample | undefined;
    try {
      after = await stats.collect();
    } catch (e) {
      log.warn({ err: String(e) }, "Eviction manager: failed to get summary stats after resource reclaim");
    }
    return { outcome: { summary: after?.summary, errors }, after };
  }

  private async evict(
    eviction: Eviction,
    wake: Wake,
    urgency: EvictionUrgency,
  ): Promise<SentEviction<EvictionOutcome>> {
    const effective = effectiveGracePeriod(eviction.gracePeriodSeconds, eviction.pod);
    try {
      const kill = await this.o.pods.kill(
        eviction.pod,
        effective,
        evictedStatus(eviction),
        eviction.annotations,
        urgency,
      );
      const lastBelowAt = Math.max(
        wake.lastBelowAt ?? -Infinity,
        this.seenBelowAt.get(eviction.signal) ?? -Infinity,
      );
      const outcome: EvictionOutcome = {
        eviction,
        effectiveGracePeriodSeconds: effective,
        kill,
        reactionMs: kill.terminatedAt - wake.at,
        ...(Number.isFinite(lastBelowAt) && lastBelowAt <= wake.at
          ? { sinceBelowMs: kill.terminatedAt - lastBelowAt }
          : {}),
      };
      return { outcome };
    } catch (e) {
      // A refusal that changed nothing is the port's to report (it knows whose budget said no).
      const blocked = e instanceof EvictionBlockedError ? e.reason : undefined;
      // A failed kill still counts as an eviction, as upstream.
      if (blocked === undefined)
        this.o.log.error({ pod: eviction.pod.key, err: String(e) }, "Eviction manager: pod failed to evict");
      const outcome: EvictionOutcome = {
        eviction,
        effectiveGracePeriodSeconds: effective,
        kill: undefined,
        killError: String(e),
        reactionMs: undefined,
      };
      return { outcome, ...(blocked !== undefined ? { blocked } : {}) };
    }
  }

  /** Waits until every evicted pod's processes are gone, or the cleanup timeout passes. */
  async waitForCleanup(outcomes: readonly EvictionOutcome[], signal?: AbortSignal): Promise<boolean> {
    const { clock, pods } = this.o;
    const deadline = clock.now() + (this.o.cleanupTimeoutMs ?? CLEANUP_TIMEOUT_MS);
    const poll = this.o.cleanupPollMs ?? CLEANUP_POLL_MS;
    while (signal?.aborted !== true) {
      const states = await Promise.all(outcomes.map((o) => pods.isCleanedUp(o.eviction.pod)));
      if (states.every(Boolean)) return true;
      if (clock.now() >= deadline) {
        this.o.log.warn(
          { pods: outcomes.map((o) => o.eviction.pod.key) },
          "Eviction manager: timed out waiting for pods to be cleaned up",
        );
        return false;
      }
      await clock.sleep(poll, signal);
    }
    return false;
  }

  /** Runs until `signal` aborts: wake, synchronize, and after an eviction wait for cleanup and look again at once. */
  async run(signal: AbortSignal): Promise<void> {
    let wake = await this.o.wake.next(0, signal);
    while (!signal.aborted) {
      const step = await this.runOnce(wake);
      if (signal.aborted) break;
      // Only pods whose kill went through are waited for (upstream: a failed kill evicts nothing).
      const killed = step.evictions.filter((e) => e.kill !== undefined);
      if (killed.length > 0 && this.o.resyncAfterEviction !== false) {
        await this.waitForCleanup(killed, signal);
        wake = { reason: "after eviction cleanup", at: this.o.clock.now(), notification: false };
        continue;
      }
      wake = await this.o.wake.next(this.o.housekeepingIntervalMs, signal);
    }
  }
}

/**
 * A pressure eviction for a soft threshold (the kubelet's `isHardEvictionThreshold` is a grace
 * period of 0) is `soft`; one for a hard threshold, and a pod over its own local-storage limit
 * (evicted at once upstream), are `hard`.
 */
function evictionUrgency(report: SyncReport, eviction: Eviction): EvictionUrgency {
  const soft =
    eviction.kind === "pressure" && report.actedOn !== undefined && report.actedOn.gracePeriodMs !== 0;
  return soft ? "soft" : "hard";
}

/** The status an evicted pod is left with: phase Failed, reason Evicted, the engine's message and condition. */
function evictedStatus(eviction: Eviction): FailedPodStatus {
  return {
    phase: "Failed",
    reason: "Evicted",
    message: eviction.message,
    conditions: eviction.condition === undefined ? [] : [eviction.condition],
  };
}
