/**
 * The replay output records (docs/replay-format.md): one `config` record, then one `step` record
 * per step. The daemon's decision log writes the same step records.
 */
import type { Eviction, Observations } from "../../core/engine/types.js";
import { formatDurationMs } from "../../core/time/duration.js";
import { formatRfc3339Ms } from "../../core/time/rfc3339.js";
import type { Pod, Signal, Threshold, ThresholdValue } from "../../core/model.js";
import { formatPercentage } from "../../core/percentage.js";
import { isCriticalPod } from "../../core/pod/critical.js";
import { podOomScoreAdjustments } from "../../core/pod/oom-score-adj.js";
import { podQos } from "../../core/pod/qos.js";
import { formatQuantity, quantityFromInt } from "../../core/quantity.js";
import { SIGNALS } from "../../core/signals.js";
import type {
  EvictionRecord,
  ObservationRecord,
  ReplayConfigRecord,
  ReplayStepRecord,
  ThresholdRef,
} from "./record-types.js";
import type { ReplayOptions, ReplayPlan, StepOutcome } from "./run-replay.js";
import { PodRoster } from "./pod-roster.js";
import type { Scenario, ScenarioHeader } from "./scenario.js";

export function formatThresholdValue(v: ThresholdValue | undefined): string {
  if (v === undefined) return "0";
  return v.kind === "quantity" ? formatQuantity(v.quantity) : formatPercentage(v.text);
}

const msToDuration = formatDurationMs;

function thresholdRef(t: Threshold): ThresholdRef {
  return {
    signal: t.signal,
    value: formatThresholdValue(t.value),
    gracePeriod: msToDuration(t.gracePeriodMs),
  };
}

/** The config record of a whole scenario: its header, and every pod initial or added. */
export function configRecord(
  scenario: Scenario,
  plan: ReplayPlan,
  options: ReplayOptions = {},
): ReplayConfigRecord {
  const roster = new PodRoster(scenario.pods);
  for (const s of scenario.steps) roster.add(s.addPods);
  return configRecordOf(scenario, plan, roster.pods, options);
}

/** The config record from a scenario's header and its pods (initial and added, once each). */
export function configRecordOf(
  scenario: ScenarioHeader,
  plan: ReplayPlan,
  pods: readonly Pod[],
  options: ReplayOptions = {},
): ReplayConfigRecord {
  const thresholds = plan.thresholds
    .filter((t) => t.operator !== "") // inert containerfs mirrors of missing thresholds
    .map((t) => ({
      signal: t.signal,
      operator: t.operator,
      value: formatThresholdValue(t.value),
      gracePeriod: msToDuration(t.gracePeriodMs),
      minReclaim: formatThresholdValue(t.minReclaim),
      hard: t.gracePeriodMs === 0,
      ...(t.derivedFrom !== undefined ? { derivedFrom: t.derivedFrom } : {}),
    }));
  const cap = scenario.nodeMemoryCapacity;
  return {
    type: "config",
    thresholds,
    evictionMaxPodGracePeriod: scenario.config.maxPodGracePeriodSeconds,
    evictionPressureTransitionPeriod: msToDuration(scenario.config.pressureTransitionPeriodMs),
    filesystems: plan.layout,
    localStorageCapacityIsolation: scenario.config.localStorageCapacityIsolation,
    pods: pods.map((p) => ({
      pod: p.key,
      qosClass: podQos(p),
      critical: isCriticalPod(p),
      ...(cap !== undefined ? { oomScoreAdj: podOomScoreAdjustments(p, cap) } : {}),
    })),
    ...(options.whatIf === true ? { whatIf: true as const } : {}),
  };
}

function observationsRecord(observations: Observations): Partial<Record<Signal, ObservationRecord>> {
  const out: Partial<Record<Signal, ObservationRecord>> = {};
  for (const [signal, o] of observations) {
    const format = SIGNALS[signal].unit === "bytes" ? "BinarySI" : "DecimalSI";
    out[signal] = {
      available: formatQuantity(quantityFromInt(o.available, format)),
      capacity: formatQuantity(quantityFromInt(o.capacity, format)),
      ...(o.time !== undefined ? { time: formatRfc3339Ms(o.time) } : {}),
    };
  }
  return out;
}

/** An eviction as the step record prints it (also the report's decision cards). */
export function evictionRecord(e: Eviction, kill: StepOutcome["kills"][number] | undefined): EvictionRecord {
  return {
    pod: e.pod.key,
    uid: e.pod.uid,
    kind: e.kind,
    signal: e.signal,
    gracePeriodSeconds: e.gracePeriodSeconds,
    effectiveGracePeriodSeconds: kill?.effectiveGracePeriodSeconds ?? e.gracePeriodSeconds,
    killFailed: kill?.killFailed ?? false,
    message: e.message,
    annotations: e.annotations,
    ...(e.condition !== undefined ? { condition: e.condition } : {}),
  };
}

export function stepRecord(o: StepOutcome): ReplayStepRecord {
  const r = o.report;
  return {
    type: "step",
    at: msToDuration(o.step.atMs),
    time: formatRfc3339Ms(o.time),
    observations: observationsRecord(r.observations),
    thresholdsMet: r.thresholdsMet.map(thresholdRef),
    conditions: r.conditions,
    actedOn: r.actedOn === undefined ? null : thresholdRef(r.actedOn),
    reclaim:
      r.reclaim === undefined
        ? null
        : {
            ran: r.reclaim.ran,
            sufficient: r.reclaim.sufficient,
            ...(r.reclaim.errors ? { errors: r.reclaim.errors } : {}),
          },
    evictions: r.evictions.map((e, i) => evictionRecord(e, o.kills[i])),
    refused: r.refused.map((f) => ({ pod: f.pod.key, reason: f.reason, kind: f.kind })),
    ...(r.ranking !== undefined ? { ranking: r.ranking.map((p) => p.key) } : {}),
    admission: o.admission.map((a) =>
      a.result.admit
        ? { pod: a.pod.key, admit: true }
        : { pod: a.pod.key, admit: false, reason: a.result.reason, message: a.result.message },
    ),
    outcome: r.outcome,
    ...(o.whatIf !== undefined
      ? {
          whatIf: {
            left: o.whatIf.left.map((p) => p.key),
            diverged: o.whatIf.diverged.map((p) => p.key),
            refusedOnArrival: o.whatIf.refusedOnArrival.map((a) => ({
              pod: a.pod.key,
              reason: a.result.reason,
              message: a.result.message,
            })),
          },
        }
      : {}),
  };
}
