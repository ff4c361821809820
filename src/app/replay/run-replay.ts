/**
 * The simulator: runs the engine over a scenario, one synchronize per step, playing the parts of
 * the kubelet around the eviction manager (active pods, node-level reclaim, the pod worker's
 * grace-period bookkeeping, admission). Pure: no I/O; records are handed to `emit` as they come.
 */
import { admitPod, type AdmitResult } from "../../core/admission.js";
import { effectiveGracePeriod, INITIAL_STATE, synchronize, withContainerFsThresholds } from "../../core/engine/index.js";
import type { EngineState, SyncReport } from "../../core/engine/types.js";
import { IssueList } from "../../core/issues.js";
import type { FilesystemLayout, NodeSummary, Pod, Threshold } from "../../core/model.js";
import { detectFilesystemLayout } from "../../core/summary/detect-layout.js";
import { decodeSummary } from "../../core/summary/decode-summary.js";
import type { RawSummary, Scenario, ScenarioStep } from "./scenario.js";

export interface StepOutcome {
  readonly step: ScenarioStep;
  readonly time: number;
  readonly report: SyncReport;
  /** Per eviction (same order as report.evictions): effective grace and whether the kill failed. */
  readonly kills: readonly { readonly effectiveGracePeriodSeconds: number; readonly killFailed: boolean }[];
  readonly admission: readonly { readonly pod: Pod; readonly result: AdmitResult }[];
  /** Active pods after the step (for explanations). */
  readonly activeAfter: readonly Pod[];
}

export interface ReplayPlan {
  readonly layout: FilesystemLayout;
  /** The thresholds the engine will use, containerfs mirrors included. */
  readonly thresholds: readonly Threshold[];
}

function decode(s: RawSummary, time: number): NodeSummary {
  // The scenario loader validated every summary up front; decoding cannot fail here.
  const summary = decodeSummary(s.raw, s.path, time, new IssueList(), { validated: true });
  if (summary === undefined) throw new Error(`internal: summary at ${s.path} failed to decode after validation`);
  return summary;
}

/** The layout and effective thresholds, known before the first step (for the config record). */
export function planReplay(scenario: Scenario): ReplayPlan {
  const first = scenario.steps.find((s) => s.summary !== undefined)?.summary;
  const layout = scenario.filesystems ?? (first === undefined ? "single" : detectFilesystemLayout(decode(first, scenario.start)));
  return { layout, thresholds: withContainerFsThresholds(scenario.config.thresholds, layout) };
}

const isTerminal = (p: Pod): boolean => p.phase === "Succeeded" || p.phase === "Failed";
const matches = (p: Pod, ref: string): boolean => p.key === ref || p.uid === ref;

export function runReplay(scenario: Scenario, plan: ReplayPlan, emit: (o: StepOutcome) => void): void {
  let state: EngineState = INITIAL_STATE;
  let active: Pod[] = scenario.pods.filter((p) => !isTerminal(p));
  let summary: NodeSummary | undefined;
  /** The pod worker's grace in force for pods already terminating (evictedPods: keep). */
  const graceInForce = new Map<string, number>();

  for (const step of scenario.steps) {
    const time = scenario.start + step.atMs;
    active = active.filter((p) => !step.removePods.some((r) => matches(p, r)));
    for (const p of step.addPods) {
      if (!isTerminal(p) && !active.some((a) => a.uid === p.uid)) active.push(p);
    }
    if (step.summary !== undefined) summary = decode(step.summary, time);

    const result = synchronize(scenario.config, state, { now: time, summary, activePods: active, layout: plan.layout });
    let report: SyncReport;
    if (result.kind === "reclaim") {
      // Node-level reclaim changes what is observed afterwards; the fresh summary after reclaim is
      // `afterReclaim`, or the unchanged current one.
      const after = step.afterReclaim !== undefined ? decode(step.afterReclaim, time) : summary;
      if (step.afterReclaim !== undefined) summary = after;
      const ran = result.resume({ summary: after, errors: pickErrors(step, result.functions) });
      state = ran.state;
      report = ran.report;
    } else {
      state = result.state;
      report = result.report;
    }

    const kills = report.evictions.map((e) => {
      const killFailed = step.killFailures.some((r) => matches(e.pod, r));
      const effective = effectiveGracePeriod(e.gracePeriodSeconds, e.pod, graceInForce.get(e.pod.uid) ?? 0);
      if (!killFailed) graceInForce.set(e.pod.uid, effective);
      return { effectiveGracePeriodSeconds: effective, killFailed };
    });
    if (scenario.evictedPods === "remove") {
      // A pod whose kill failed is still running, so it stays active (and may be chosen again).
      const gone = new Set(report.evictions.filter((_, i) => kills[i]?.killFailed !== true).map((e) => e.pod.uid));
      active = active.filter((p) => !gone.has(p.uid));
    }
    const admission = step.admit.map((pod) => ({ pod, result: admitPod(pod, state.nodeConditions) }));
    emit({ step, time, report, kills, admission, activeAfter: active });
  }
}

function pickErrors(step: ScenarioStep, functions: readonly string[]): ScenarioStep["reclaimErrors"] {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(step.reclaimErrors)) if (functions.includes(k) && v !== undefined) out[k] = v;
  return out;
}
