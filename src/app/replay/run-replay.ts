/**
 * The simulator: runs the engine over a scenario, one synchronize per step, playing the parts of
 * the kubelet around the eviction manager (active pods, node-level reclaim, the pod worker's
 * grace-period bookkeeping, admission). Pure: no I/O; steps go in one at a time and outcomes are
 * handed to `emit` as they come.
 */
import { isTerminalPhase } from "../../core/pod/terminal-phase.js";
import { admitPod, type AdmitResult, type RejectedAdmitResult } from "../../core/admission.js";
import {
  effectiveGracePeriod,
  INITIAL_STATE,
  synchronize,
  withContainerFsThresholds,
} from "../../core/engine/index.js";
import type { EngineState, SyncReport } from "../../core/engine/types.js";
import { IssueList } from "../../core/issues.js";
import type { FilesystemLayout, NodeSummary, Pod, Threshold } from "../../core/model.js";
import { detectFilesystemLayout } from "../../core/summary/detect-layout.js";
import { decodeSummary } from "../../core/summary/decode-summary.js";
import type { RawSummary, Scenario, ScenarioHeader, ScenarioStep } from "./scenario.js";
import { Counterfactual } from "./counterfactual.js";
import type { FreedByPods } from "../../core/summary/without-pods.js";

/** What a what-if replay adds to a step (docs/replay-format.md, "what-if replay"). */
export interface WhatIfOutcome {
  /** Pods whose usage left the node's figures first at this step. */
  readonly left: readonly Pod[];
  /** Active pods the recording lost (no stats any more) that this configuration kept. */
  readonly diverged: readonly Pod[];
  /** Pods that arrived at this step (`addPods`) and that this configuration's conditions refused. */
  readonly refusedOnArrival: readonly { readonly pod: Pod; readonly result: RejectedAdmitResult }[];
  /** What the pods gone gave back in this step's sample; undefined when nothing (or no new sample). */
  readonly freed: FreedByPods | undefined;
}

export interface StepOutcome {
  readonly step: ScenarioStep;
  readonly time: number;
  readonly report: SyncReport;
  /** Per eviction (same order as report.evictions): effective grace and whether the kill failed. */
  readonly kills: readonly { readonly effectiveGracePeriodSeconds: number; readonly killFailed: boolean }[];
  readonly admission: readonly { readonly pod: Pod; readonly result: AdmitResult }[];
  /** Active pods after the step (for explanations). */
  readonly activeAfter: readonly Pod[];
  /** The summary the step decided from (the last one seen, or the one after reclaim). */
  readonly summary: NodeSummary | undefined;
  /** Present in a what-if replay only. */
  readonly whatIf?: WhatIfOutcome;
}

/** How a replay treats the recorded samples. */
export interface ReplayOptions {
  /**
   * Counterfactual: a pod this configuration evicts leaves later samples' figures (from its
   * eviction plus its effective grace period), pods arriving under a condition that refuses them
   * never run, and pods the recording lost while this configuration kept them are marked
   * diverged. Off (open loop): every sample is replayed as recorded.
   */
  readonly whatIf?: boolean;
}

export interface ReplayPlan {
  readonly layout: FilesystemLayout;
  /** The thresholds the engine will use, containerfs mirrors included. */
  readonly thresholds: readonly Threshold[];
}

function decode(s: RawSummary, time: number): NodeSummary {
  // The scenario loader validated every summary up front; decoding cannot fail here.
  const summary = decodeSummary(s.raw, s.path, time, new IssueList(), { validated: true });
  if (summary === undefined)
    throw new Error(`internal: summary at ${s.path} failed to decode after validation`);
  return summary;
}

/**
 * The layout and effective thresholds, known before the first step is replayed (the engine needs the
 * layout at every synchronize): `filesystems`, else detected from `firstSummary`, the summary of the
 * first step that has one, decoded at the scenario's start.
 */
export function planFor(header: ScenarioHeader, firstSummary: RawSummary | undefined): ReplayPlan {
  const layout =
    header.filesystems ??
    (firstSummary === undefined ? "single" : detectFilesystemLayout(decode(firstSummary, header.start)));
  return { layout, thresholds: withContainerFsThresholds(header.config.thresholds, layout) };
}

/** The plan of a whole scenario (for the config record, written before the first step). */
export function planReplay(scenario: Scenario): ReplayPlan {
  return planFor(scenario, scenario.steps.find((s) => s.summary !== undefined)?.summary);
}

const isTerminal = (p: Pod): boolean => isTerminalPhase(p.phase);
const matches = (p: Pod, ref: string): boolean => p.key === ref || p.uid === ref;

/**
 * Replays steps one at a time, as they are read: what the simulator carries between steps (engine
 * state, active pods, the current summary, the pod worker's grace in force) lives here, so a trace
 * need not be held in memory. Without a plan or a `filesystems` header, steps are held back until the
 * first one with a summary fixes the layout (usually the very first step), then replayed in order.
 */
export class Replayer {
  private readonly header: ScenarioHeader;
  private readonly emit: (o: StepOutcome, plan: ReplayPlan) => void;
  private currentPlan: ReplayPlan | undefined;
  private held: ScenarioStep[] = [];
  private state: EngineState = INITIAL_STATE;
  private active: Pod[];
  private summary: NodeSummary | undefined;
  /** The pod worker's grace in force for pods already terminating (evictedPods: keep). */
  private readonly graceInForce = new Map<string, number>();
  private readonly whatIf: boolean;
  private counterfactual: Counterfactual | undefined;

  constructor(
    header: ScenarioHeader,
    emit: (o: StepOutcome, plan: ReplayPlan) => void,
    plan?: ReplayPlan,
    options: ReplayOptions = {},
  ) {
    this.header = header;
    this.emit = emit;
    this.whatIf = options.whatIf === true;
    // A layout given in the header needs no summary.
    this.currentPlan = plan ?? (header.filesystems !== undefined ? planFor(header, undefined) : undefined);
    this.active = header.pods.filter((p) => !isTerminal(p));
  }

  /** The plan, once known (from the start, or from the first summary). */
  get plan(): ReplayPlan | undefined {
    return this.currentPlan;
  }

  /** Replays `step` (steps must come in order), or holds it until the layout is known. */
  step(step: ScenarioStep): void {
    if (this.currentPlan === undefined) {
      if (step.summary === undefined) {
        this.held.push(step);
        return;
      }
      this.currentPlan = planFor(this.header, step.summary);
      this.release(this.currentPlan);
    }
    this.play(step, this.currentPlan);
  }

  /** Replays whatever is still held (a scenario without any summary) and returns the plan. */
  end(): ReplayPlan {
    const plan = this.currentPlan ?? planFor(this.header, undefined);
    this.currentPlan = plan;
    this.release(plan);
    return plan;
  }

  private release(plan: ReplayPlan): void {
    const held = this.held;
    this.held = [];
    for (const s of held) this.play(s, plan);
  }

  private play(step: ScenarioStep, plan: ReplayPlan): void {
    const { header } = this;
    const time = header.start + step.atMs;
    const cf = this.whatIf ? (this.counterfactual ??= new Counterfactual(plan.layout)) : undefined;
    let active = this.active.filter((p) => !step.removePods.some((r) => matches(p, r)));
    if (cf !== undefined) for (const p of this.active) if (!active.includes(p)) cf.forget(p.uid);
    const refusedOnArrival: { pod: Pod; result: RejectedAdmitResult }[] = [];
    for (const p of step.addPods) {
      if (isTerminal(p) || active.some((a) => a.uid === p.uid)) continue;
      if (cf !== undefined) {
        // It arrives now: admitted or not by this configuration's conditions as they stand.
        const result = admitPod(p, this.state.nodeConditions);
        if (!result.admit) {
          refusedOnArrival.push({ pod: p, result });
          cf.depart(p, time);
          continue;
        }
      }
      active.push(p);
    }
    active = applyUpdates(active, step.updatePods, cf);
    let left: readonly Pod[] = [];
    let diverged: readonly Pod[] = [];
    let freed: FreedByPods | undefined;
    if (step.summary !== undefined) {
      const recorded = decode(step.summary, time);
      if (cf === undefined) this.summary = recorded;
      else {
        diverged = cf.diverged(recorded, active);
        const adjusted = cf.adjust(recorded, time);
        this.summary = adjusted.summary;
        left = adjusted.left;
        freed = adjusted.freed;
      }
    }

    const result = synchronize(header.config, this.state, {
      now: time,
      summary: this.summary,
      activePods: active,
      layout: plan.layout,
    });
    let report: SyncReport;
    if (result.kind === "reclaim") {
      // Node-level reclaim changes what is observed afterwards; the fresh summary after reclaim is
      // `afterReclaim`, or the unchanged current one.
      const after =
        step.afterReclaim === undefined
          ? this.summary
          : cf === undefined
            ? decode(step.afterReclaim, time)
            : cf.adjust(decode(step.afterReclaim, time), time).summary;
      if (step.afterReclaim !== undefined) this.summary = after;
      const ran = result.resume({ summary: after, errors: pickErrors(step, result.functions) });
      this.state = ran.state;
      report = ran.report;
    } else {
      this.state = result.state;
      report = result.report;
    }

    const kills = report.evictions.map((e) => {
      const killFailed = step.killFailures.some((r) => matches(e.pod, r));
      const effective = effectiveGracePeriod(
        e.gracePeriodSeconds,
        e.pod,
        this.graceInForce.get(e.pod.uid) ?? 0,
      );
      if (!killFailed) this.graceInForce.set(e.pod.uid, effective);
      return { effectiveGracePeriodSeconds: effective, killFailed };
    });
    if (header.evictedPods === "remove" || cf !== undefined) {
      // A pod whose kill failed is still running, so it stays active (and may be chosen again).
      const gone = new Set(
        report.evictions.filter((_, i) => kills[i]?.killFailed !== true).map((e) => e.pod.uid),
      );
      if (gone.size > 0) active = active.filter((p) => !gone.has(p.uid));
    }
    if (cf !== undefined)
      report.evictions.forEach((e, i) => {
        const kill = kills[i];
        // Gone once its grace period has run out: the latest its processes can still hold memory.
        if (kill !== undefined && !kill.killFailed)
          cf.depart(e.pod, time + kill.effectiveGracePeriodSeconds * 1000);
      });
    this.active = active;
    const admission = step.admit.map((pod) => ({ pod, result: admitPod(pod, this.state.nodeConditions) }));
    this.emit(
      {
        step,
        time,
        report,
        kills,
        admission,
        activeAfter: active,
        summary: this.summary,
        ...(cf !== undefined ? { whatIf: { left, diverged, refusedOnArrival, freed } } : {}),
      },
      plan,
    );
  }
}

/** Replays a whole scenario, handing each step's outcome to `emit` as it comes. */
export function runReplay(
  scenario: Scenario,
  plan: ReplayPlan,
  emit: (o: StepOutcome) => void,
  options: ReplayOptions = {},
): void {
  const replayer = new Replayer(scenario, emit, plan, options);
  for (const step of scenario.steps) replayer.step(step);
  replayer.end();
}

/**
 * `updatePods`: each update takes the place of the active pod with its UID, in its place in the
 * order, so the pod stays active with its new requests (an in-place resize). An update of a pod not
 * active here is ignored: the recording's node still had it, but this replay removed or evicted it,
 * and an update does not bring a pod back. An update to a terminal phase ends the pod, as a
 * terminal pod in `addPods` never starts.
 */
function applyUpdates(active: Pod[], updates: readonly Pod[], cf: Counterfactual | undefined): Pod[] {
  if (updates.length === 0) return active;
  const byUid = new Map(updates.map((p) => [p.uid, p]));
  return active.flatMap((p) => {
    const update = byUid.get(p.uid);
    if (update === undefined) return [p];
    if (!isTerminal(update)) return [update];
    cf?.forget(p.uid);
    return [];
  });
}

function pickErrors(step: ScenarioStep, functions: readonly string[]): ScenarioStep["reclaimErrors"] {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(step.reclaimErrors))
    if (functions.includes(k) && v !== undefined) out[k] = v;
  return out;
}
