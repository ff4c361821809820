/**
 * synchronize: one run of the kubelet's eviction manager, as a pure function of the configuration,
 * the state left by the previous run and this run's inputs. It returns the next state and a report
 * of every decision; when node-level reclaim must run, it stops and hands the caller a `resume`
 * continuation that takes the reclaim outcome (the I/O stays with the caller).
 */
import type { EvictionConfig, FilesystemLayout, NodeSummary, Threshold } from "../model.js";
import { isCriticalPod } from "../pod/critical.js";
import { podFacts } from "../pod/pod-facts.js";
import { podStatsLookup, type PodStatsLookup } from "../rank/pod-stats-lookup.js";
import { rankPods } from "../rank/rank-pods.js";
import { SIGNALS } from "../signals.js";
import { withContainerFsThresholds } from "./containerfs-thresholds.js";
import { evictionMessage } from "./eviction-message.js";
import { evictionGracePeriodOverride } from "./grace-period.js";
import { localStorageEvictions } from "./local-storage.js";
import {
  nodeConditionsLastObservedAt,
  nodeConditionsObservedSince,
  nodeConditionsOf,
} from "./node-conditions.js";
import { makeSignalObservations } from "./observations.js";
import { reclaimFunctionsFor } from "./signal-tables.js";
import {
  mergeThresholds,
  thresholdsFirstObservedAt,
  thresholdsMet,
  thresholdsMetGracePeriod,
  thresholdsUpdatedStats,
} from "./thresholds-met.js";
import type {
  EngineState,
  Eviction,
  Observations,
  ReclaimOutcome,
  ReclaimReport,
  Refusal,
  SyncInput,
  SyncReport,
  SyncResult,
} from "./types.js";

/** Memory threshold notifiers are re-armed at most this often (notifierRefreshInterval). */
const NOTIFIER_REFRESH_MS = 10_000;

/**
 * byEvictionPriority: memory thresholds first. Upstream leaves the rest to Go map order; here the
 * order is deterministic: hard before soft (the hard one decides the kill grace), then config order.
 */
export function byEvictionPriority(thresholds: readonly Threshold[]): Threshold[] {
  const rank = (t: Threshold): number => (SIGNALS[t.signal].memory ? 0 : 2) + (t.gracePeriodMs === 0 ? 0 : 1);
  return thresholds
    .map((t, i) => ({ t, i }))
    .sort((a, b) => rank(a.t) - rank(b.t) || a.i - b.i)
    .map((x) => x.t);
}

function emptyReport(
  now: number,
  outcome: string,
  statsUnavailable: boolean,
  conditions: EngineState["nodeConditions"] = [],
): SyncReport {
  return {
    now,
    ran: false,
    statsUnavailable,
    observations: new Map(),
    thresholdsMet: [],
    awaitingGrace: [],
    staleStats: [],
    conditions,
    evictions: [],
    refused: [],
    statsAge: [],
    updateNotifiers: false,
    outcome,
  };
}

interface Context {
  readonly config: EvictionConfig;
  readonly input: SyncInput;
  readonly summary: NodeSummary;
  readonly layout: FilesystemLayout;
  /** Thresholds stored for later runs (with containerfs mirrors) and used by the reclaim check. */
  readonly storedThresholds: readonly Threshold[];
  readonly observations: Observations;
  readonly lookup: () => PodStatsLookup;
}

export function synchronize(config: EvictionConfig, state: EngineState, input: SyncInput): SyncResult {
  const now = input.now;
  if (config.thresholds.length === 0 && !config.localStorageCapacityIsolation) {
    return { kind: "done", state, report: emptyReport(now, "no thresholds configured", false) };
  }

  // Layout detection happens once; containerfs mirrors are derived then. Upstream quirk kept: the
  // first run evaluates the list as configured, later runs the list with the mirrors.
  const firstRun = state.layout === undefined;
  const layout = state.layout ?? input.layout;
  const storedThresholds = state.thresholds ?? withContainerFsThresholds(config.thresholds, layout);
  const evaluated = firstRun ? config.thresholds : storedThresholds;
  const baseState: EngineState = { ...state, layout, thresholds: storedThresholds };

  const summary = input.summary;
  if (summary === undefined) {
    return {
      kind: "done",
      state: baseState,
      report: emptyReport(now, "failed to get summary stats", true, state.nodeConditions),
    };
  }

  const updateNotifiers =
    state.notifiersUpdatedAt === undefined || now - state.notifiersUpdatedAt > NOTIFIER_REFRESH_MS;
  const observations = makeSignalObservations(summary);

  let met = thresholdsMet(evaluated, observations, false);
  if (state.thresholdsMet.length > 0) {
    met = mergeThresholds(met, thresholdsMet(state.thresholdsMet, observations, true));
  }
  const firstObservedAt = thresholdsFirstObservedAt(met, state.thresholdsFirstObservedAt, now);
  const lastObservedAt = nodeConditionsLastObservedAt(
    nodeConditionsOf(met),
    state.nodeConditionsLastObservedAt,
    now,
  );
  const conditions = nodeConditionsObservedSince(lastObservedAt, config.pressureTransitionPeriodMs, now);
  const graceMet = thresholdsMetGracePeriod(met, firstObservedAt, now);
  const fresh = thresholdsUpdatedStats(graceMet, observations, state.lastObservations);

  const nextState: EngineState = {
    ...baseState,
    thresholdsFirstObservedAt: firstObservedAt,
    nodeConditionsLastObservedAt: lastObservedAt,
    nodeConditions: conditions,
    thresholdsMet: graceMet,
    lastObservations: observations,
    ...(updateNotifiers ? { notifiersUpdatedAt: now } : {}),
  };

  let lookupCache: PodStatsLookup | undefined;
  const ctx: Context = {
    config,
    input,
    summary,
    layout,
    storedThresholds,
    observations,
    lookup: () => (lookupCache ??= podStatsLookup(summary)),
  };

  const base: SyncReport = {
    now,
    ran: true,
    statsUnavailable: false,
    observations,
    thresholdsMet: met,
    awaitingGrace: met
      .filter((t) => !graceMet.includes(t))
      .map((t) => ({ threshold: t, since: firstObservedAt.get(t.id) ?? now })),
    staleStats: graceMet.filter((t) => !fresh.includes(t)),
    conditions,
    evictions: [],
    refused: [],
    statsAge: [],
    updateNotifiers,
    outcome: "",
  };
  const done = (report: Partial<SyncReport> & { outcome: string }): SyncResult => ({
    kind: "done",
    state: nextState,
    report: { ...base, ...report },
  });

  if (config.localStorageCapacityIsolation) {
    const limited = input.activePods.filter((p) => podFacts(p).hasLocalStorageLimits);
    if (limited.length > 0) {
      const ls = localStorageEvictions(limited, ctx.lookup(), layout);
      if (ls.evictions.length > 0) {
        return done({
          evictions: ls.evictions,
          refused: ls.refused,
          outcome: "evicted pods over their local storage limits",
        });
      }
      // Critical pods refused here are reported together with whatever pressure handling does.
      const withRefusals: SyncReport = { ...base, refused: ls.refused };
      if (fresh.length === 0) return done({ refused: ls.refused, outcome: "no resources are starved" });
      return actOnPressure(ctx, fresh, nextState, withRefusals);
    }
  }
  if (fresh.length === 0) return done({ outcome: "no resources are starved" });
  return actOnPressure(ctx, fresh, nextState, base);
}

function actOnPressure(
  ctx: Context,
  fresh: readonly Threshold[],
  nextState: EngineState,
  base: SyncReport,
): SyncResult {
  const sorted = byEvictionPriority(fresh);
  const actedOn = sorted[0];
  if (actedOn === undefined) {
    return { kind: "done", state: nextState, report: { ...base, outcome: "no resources are starved" } };
  }
  const resource = SIGNALS[actedOn.signal].resource;
  const acting: SyncReport = {
    ...base,
    actedOn,
    nodeEvent: { reason: "EvictionThresholdMet", message: `Attempting to reclaim ${resource}` },
  };
  const functions = reclaimFunctionsFor(actedOn.signal, ctx.layout);
  if (functions.length === 0) {
    return { kind: "done", state: nextState, report: evictOnePod(ctx, sorted, actedOn, acting) };
  }
  return {
    kind: "reclaim",
    state: nextState,
    functions,
    resume: (outcome: ReclaimOutcome) => {
      const reclaim = reclaimSufficiency(ctx, functions, outcome);
      const withReclaim: SyncReport = { ...acting, reclaim };
      if (reclaim.sufficient) {
        return {
          state: nextState,
          report: { ...withReclaim, outcome: "able to reduce resource pressure without evicting pods." },
        };
      }
      return { state: nextState, report: evictOnePod(ctx, sorted, actedOn, withReclaim) };
    },
  };
}

/**
 * After reclaim, ALL thresholds (every signal, hard and soft, grace ignored) are evaluated with
 * minimum reclaim enforced against a fresh summary; any one met makes the reclaim insufficient.
 */
function reclaimSufficiency(
  ctx: Context,
  functions: ReclaimReport["ran"],
  outcome: ReclaimOutcome,
): ReclaimReport {
  const errors =
    outcome.errors !== undefined && Object.keys(outcome.errors).length > 0 ? { errors: outcome.errors } : {};
  if (outcome.summary === undefined) return { ran: functions, sufficient: false, ...errors };
  const after = makeSignalObservations(outcome.summary);
  const stillMet = thresholdsMet(ctx.storedThresholds, after, true);
  return { ran: functions, sufficient: stillMet.length === 0, ...errors };
}

/** Ranks the active pods and evicts the first non-critical one (one pod per run). */
function evictOnePod(
  ctx: Context,
  sorted: readonly Threshold[],
  actedOn: Threshold,
  report: SyncReport,
): SyncReport {
  const pods = ctx.input.activePods;
  if (pods.length === 0) {
    return { ...report, outcome: "eviction thresholds have been met, but no pods are active to evict" };
  }
  const lookup = ctx.lookup();
  const ranking = rankPods(actedOn.signal, ctx.layout, pods, lookup);
  if (ranking === undefined) return { ...report, outcome: "no ranking function for signal" };

  const statsAge = sorted.flatMap((t) => {
    const time = ctx.observations.get(t.signal)?.time;
    return time === undefined ? [] : [{ signal: t.signal, seconds: (ctx.input.now - time) / 1000, time }];
  });
  const resource = SIGNALS[actedOn.signal].resource;
  const refused: Refusal[] = [...report.refused];
  for (const pod of ranking) {
    const text = evictionMessage(resource, pod, lookup(pod), sorted, ctx.observations);
    if (isCriticalPod(pod)) {
      refused.push({ pod, reason: "critical", kind: "pressure" });
      continue;
    }
    const eviction: Eviction = {
      pod,
      kind: "pressure",
      signal: actedOn.signal,
      gracePeriodSeconds: evictionGracePeriodOverride(actedOn, pod, ctx.config.maxPodGracePeriodSeconds),
      message: text.message,
      annotations: text.annotations,
      condition: {
        type: "DisruptionTarget",
        status: "True",
        reason: "TerminationByKubelet",
        message: text.message,
      },
    };
    return {
      ...report,
      ranking,
      statsAge,
      refused,
      evictions: [eviction],
      outcome: "must evict pod(s) to reclaim",
    };
  }
  return { ...report, ranking, statsAge, refused, outcome: "unable to evict any pods from the node" };
}
