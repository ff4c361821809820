/**
 * What a replay report shows, gathered step by step as the replay runs (pure: outcomes in, plain
 * data out): every signal's observed value and capacity, the thresholds in force and when their
 * grace periods ran, the node conditions, evictions with the ranking at that moment and the reason
 * for each place, refused admissions, and the pods' usage of the signal that ranked them; beside the
 * memory signals, the memory pressure (PSI) the Summaries report and the node's memory three ways a
 * recorder read (a step's `nodeMemoryViews`), which no decision reads. Nothing
 * of a step is kept but numbers, so a day-long trace of a 110-pod node fits in a few MB.
 *
 * One file because every series the collector keeps is indexed by step: one `step` call extends
 * them all (NaN where a step has no value) and `dropBefore` trims them all at once (the live page's
 * window), so the series and the shape they end up in change together.
 */
import type { SyncReport } from "../../core/engine/types.js";
import type { NodeCondition, NodeSummary, Pod, PsiStats, Signal, Threshold } from "../../core/model.js";
import type { NodeEnvironment } from "../../core/node/node-environment.js";
import type { ScenarioStep } from "../replay/scenario.js";
import { thresholdQuantity } from "../../core/engine/threshold-quantity.js";
import { explainRanking } from "../../core/rank/explain-ranking.js";
import { podStatsLookup } from "../../core/rank/pod-stats-lookup.js";
import { rankCandidates } from "../../core/rank/rank-pods.js";
import { ALL_SIGNALS, NODE_CONDITIONS } from "../../core/signals.js";
import type { EvictionRecord } from "../replay/record-types.js";
import { evictionRecord, formatThresholdValue } from "../replay/records.js";
import { quantityValue } from "../../core/quantity.js";
import type { ReplayPlan, StepOutcome } from "../replay/run-replay.js";

/**
 * What the report takes of a step: a replayed one, or a daemon's loop step (without a summary). Of
 * the scenario step itself, only what a recorder wrote beside the decision's input (its time, the
 * node's memory views).
 */
export type ReportStep = Omit<StepOutcome, "step"> & {
  readonly step?: Pick<ScenarioStep, "atMs" | "nodeMemoryViews">;
};

/** One signal over the replay: NaN where a step had no observation. */
export interface SignalSeries {
  readonly signal: Signal;
  readonly available: number[];
  readonly capacity: number[];
}

/**
 * The memory pressure (PSI avg10, percent) beside a memory signal, per step, NaN where the Summary
 * reported none: the node's beside memory.available, the pods cgroup's beside
 * allocatableMemory.available. Data only: the eviction manager never reads it.
 */
export interface PressureSeries {
  readonly signal: Signal;
  /** Whose pressure: `node` or `pods cgroup`. */
  readonly of: string;
  readonly some: number[];
  readonly full: number[];
}

/**
 * The node's memory three ways (core/memory/node-memory-views.ts) as a recorder read them after each
 * step was decided, in bytes, NaN where a step carries none: evictd's addition, shown beside
 * memory.available, read by no decision. Recorded figures: a what-if replay does not change them.
 */
export interface NodeMemoryViewsSeries {
  /** When each step's views were read (epoch ms). */
  readonly readAt: number[];
  readonly capacity: number[];
  /** The kubelet's formula on that read: capacity − (usage − inactive_file). */
  readonly kubelet: number[];
  /** /proc/meminfo MemAvailable (machine-wide). */
  readonly kernelAvailable: number[];
  /** The kubelet's working set with kernel memory in it, against the same capacity. */
  readonly withKernelMemory: number[];
  readonly kernelMemory: number[];
  /** The files of the last read, and what the usage and kernel memory were taken from. */
  readonly source?: string;
  readonly usageFrom?: string;
  readonly kernelMemoryFrom?: string;
  /** The kubelet's usage counted kernel memory already at every read that had it (a node cgroup). */
  readonly kernelMemoryInKubeletFigure: boolean;
}

/** Which memory pressure stands beside which signal, and where a Summary holds it. */
const PRESSURE_SOURCES: readonly {
  readonly signal: Signal;
  readonly of: string;
  readonly psi: (summary: NodeSummary) => PsiStats | undefined;
}[] = [
  { signal: "memory.available", of: "node", psi: (s) => s.node.memory?.psi },
  {
    signal: "allocatableMemory.available",
    of: "pods cgroup",
    psi: (s) => s.node.systemContainers.find((c) => c.name === "pods")?.memory?.psi,
  },
];

/** A threshold as the report draws it. */
export interface ReportThreshold {
  readonly id: string;
  readonly signal: Signal;
  readonly hard: boolean;
  /** hard / soft / allocatable / containerfs, and the signal a derived one copies. */
  readonly origin: string;
  readonly value: string;
  readonly gracePeriodMs: number;
  readonly minReclaim: string;
  /** The threshold's quantity at each step (percentages follow the capacity), NaN where unknown. */
  readonly level: number[];
  /** The threshold plus its minimum reclaim: what an eviction must bring the signal back above. */
  readonly reclaimLevel: number[];
}

/** A closed interval of step indexes [from, to]. */
export interface StepSpan {
  readonly from: number;
  readonly to: number;
}

export interface RankedPlace {
  readonly place: number;
  readonly pod: string;
  readonly reason: string;
  readonly critical: boolean;
}

export interface ReportEviction {
  readonly step: number;
  readonly record: EvictionRecord;
  /** The order at that moment, for the signal acted on (the first places only on big nodes). */
  readonly ranking: readonly RankedPlace[];
  readonly rankedPods: number;
}

export interface ReportRefusal {
  readonly step: number;
  readonly pod: string;
  readonly message: string;
}

/** Usage of the ranking signal per pod (the heaviest pods, the rest summed). */
export interface PodUsage {
  readonly signal: Signal;
  readonly unit: "bytes" | "inodes" | "processes";
  readonly pods: readonly { readonly pod: string; readonly values: number[]; readonly evictedAt?: number }[];
}

export interface ReportData {
  readonly source: string;
  readonly times: number[];
  readonly series: readonly SignalSeries[];
  readonly thresholds: readonly ReportThreshold[];
  /** Per threshold id: the spans its grace period ran (met, not yet acted on). */
  readonly grace: ReadonlyMap<string, readonly StepSpan[]>;
  /** Per threshold id: the spans it was met. */
  readonly met: ReadonlyMap<string, readonly StepSpan[]>;
  readonly conditions: ReadonlyMap<NodeCondition, readonly StepSpan[]>;
  readonly evictions: readonly ReportEviction[];
  readonly refusals: readonly ReportRefusal[];
  readonly podUsage: PodUsage | undefined;
  readonly config: {
    readonly evictionMaxPodGracePeriod: number;
    readonly pressureTransitionPeriodMs: number;
    readonly layout: string;
  };
  readonly warnings: readonly string[];
  /** An imported trace's figure sources (signal or field → "exact|approximate|missing: from ..."). */
  readonly figureSources?: Readonly<Record<string, string>>;
  /** Memory pressure beside the memory signals, when the trace reports any. */
  readonly pressure?: readonly PressureSeries[];
  /** The node's memory three ways beside memory.available, when the trace carries any. */
  readonly nodeMemoryViews?: NodeMemoryViewsSeries;
  /** What the trace's header says of the node it was recorded on. */
  readonly environment?: NodeEnvironment;
}

/** Places of the ranking kept per eviction card. */
export const RANKING_PLACES = 12;
/** Pods drawn one by one in the usage chart; the rest are summed. */
export const USAGE_PODS = 12;

interface Tracker {
  spans: StepSpan[];
  open: number | undefined;
}

export class ReportCollector {
  readonly #times: number[] = [];
  readonly #series = new Map<Signal, SignalSeries>();
  readonly #thresholds = new Map<string, { t: Threshold; level: number[]; reclaim: number[] }>();
  readonly #grace = new Map<string, Tracker>();
  readonly #met = new Map<string, Tracker>();
  readonly #conditions = new Map<NodeCondition, Tracker>();
  readonly #evictions: ReportEviction[] = [];
  readonly #refusals: ReportRefusal[] = [];
  /** Per signal, per pod key: usage at each step (NaN before the pod appears). */
  readonly #usage = new Map<Signal, Map<string, number[]>>();
  readonly #evictedAt = new Map<string, number>();
  #plan: ReplayPlan | undefined;
  #rankingSignal: Signal | undefined;

  readonly #source: string;
  readonly #config: {
    readonly maxPodGracePeriodSeconds: number;
    readonly pressureTransitionPeriodMs: number;
  };

  readonly #figureSources: Readonly<Record<string, string>> | undefined;
  readonly #environment: NodeEnvironment | undefined;
  readonly #pressure: PressureSeries[] = PRESSURE_SOURCES.map((p) => ({
    signal: p.signal,
    of: p.of,
    some: [],
    full: [],
  }));
  readonly #views = {
    readAt: [] as number[],
    capacity: [] as number[],
    kubelet: [] as number[],
    kernelAvailable: [] as number[],
    withKernelMemory: [] as number[],
    kernelMemory: [] as number[],
  };
  #viewsAbout: { source?: string; usageFrom?: string; kernelMemoryFrom?: string } = {};
  #kernelMemoryInKubelet: boolean | undefined;

  constructor(
    source: string,
    config: { readonly maxPodGracePeriodSeconds: number; readonly pressureTransitionPeriodMs: number },
    figureSources?: Readonly<Record<string, string>>,
    environment?: NodeEnvironment,
  ) {
    this.#source = source;
    this.#config = config;
    this.#figureSources = figureSources;
    this.#environment = environment;
  }

  /** Takes in one replayed step. */
  step(o: ReportStep, plan: ReplayPlan): void {
    this.#plan = plan;
    const i = this.#times.length;
    this.#times.push(o.time);
    const r = o.report;
    for (const signal of ALL_SIGNALS) {
      const obs = r.observations.get(signal);
      let s = this.#series.get(signal);
      if (obs === undefined && s === undefined) continue;
      if (s === undefined) {
        s = {
          signal,
          available: new Array<number>(i).fill(Number.NaN),
          capacity: new Array<number>(i).fill(Number.NaN),
        };
        this.#series.set(signal, s);
      }
      s.available.push(obs === undefined ? Number.NaN : Number(obs.available));
      s.capacity.push(obs === undefined ? Number.NaN : Number(obs.capacity));
    }
    for (const t of plan.thresholds) {
      if (t.operator === "" || t.value === undefined) continue;
      let entry = this.#thresholds.get(t.id);
      if (entry === undefined) {
        entry = {
          t,
          level: new Array<number>(i).fill(Number.NaN),
          reclaim: new Array<number>(i).fill(Number.NaN),
        };
        this.#thresholds.set(t.id, entry);
      }
      const cap = r.observations.get(t.signal)?.capacity;
      if (cap === undefined) {
        entry.level.push(Number.NaN);
        entry.reclaim.push(Number.NaN);
      } else {
        const level = Number(quantityValue(thresholdQuantity(t.value, cap)));
        const extra =
          t.minReclaim === undefined ? 0 : Number(quantityValue(thresholdQuantity(t.minReclaim, cap)));
        entry.level.push(level);
        entry.reclaim.push(level + extra);
      }
    }
    const awaiting = new Set(r.awaitingGrace.map((g) => g.threshold.id));
    const met = new Set(r.thresholdsMet.map((t) => t.id));
    for (const id of this.#thresholds.keys()) {
      track(this.#grace, id, i, awaiting.has(id));
      track(this.#met, id, i, met.has(id));
    }
    for (const c of NODE_CONDITIONS) track(this.#conditions, c, i, r.conditions.includes(c));
    this.#takePressure(o.summary);
    this.#takeViews(o);
    this.#takeUsage(o, r, plan, i);
    r.evictions.forEach((e, k) => {
      const kill = o.kills[k] ?? { effectiveGracePeriodSeconds: e.gracePeriodSeconds, killFailed: false };
      this.#evictedAt.set(e.pod.key, i);
      this.#evictions.push({ step: i, record: evictionRecord(e, kill), ...this.#rankingAt(o, r, plan) });
    });
    for (const a of o.admission) {
      if (!a.result.admit) this.#refusals.push({ step: i, pod: a.pod.key, message: a.result.message });
    }
  }

  /**
   * Forgets the steps before `timeMs` (a live view keeps the last minutes): every series, span,
   * eviction and refusal moves down by the steps dropped; a span or grace period that began before
   * the window begins at its start.
   */
  dropBefore(timeMs: number): void {
    let k = 0;
    while (k < this.#times.length && (this.#times[k] ?? 0) < timeMs) k++;
    if (k === 0) return;
    this.#times.splice(0, k);
    for (const s of this.#series.values()) {
      s.available.splice(0, k);
      s.capacity.splice(0, k);
    }
    for (const t of this.#thresholds.values()) {
      t.level.splice(0, k);
      t.reclaim.splice(0, k);
    }
    for (const p of this.#pressure) {
      p.some.splice(0, k);
      p.full.splice(0, k);
    }
    for (const values of Object.values(this.#views)) values.splice(0, k);
    for (const m of [this.#grace, this.#met, this.#conditions] as Map<unknown, Tracker>[]) {
      for (const tr of m.values()) {
        tr.spans = tr.spans
          .filter((sp) => sp.to >= k)
          .map((sp) => ({ from: Math.max(0, sp.from - k), to: sp.to - k }));
        if (tr.open !== undefined) tr.open = Math.max(0, tr.open - k);
      }
    }
    const shift = <T extends { readonly step: number }>(items: T[]): T[] =>
      items.filter((e) => e.step >= k).map((e) => ({ ...e, step: e.step - k }));
    this.#evictions.splice(0, this.#evictions.length, ...shift(this.#evictions));
    this.#refusals.splice(0, this.#refusals.length, ...shift(this.#refusals));
    for (const perPod of this.#usage.values()) {
      for (const [pod, values] of perPod) {
        values.splice(0, k);
        if (values.every((v) => Number.isNaN(v))) perPod.delete(pod);
      }
    }
    for (const [pod, at] of this.#evictedAt) {
      if (at < k) this.#evictedAt.delete(pod);
      else this.#evictedAt.set(pod, at - k);
    }
  }

  /** The report's data once every step was taken in; `warnings` are the scenario's lint warnings. */
  finish(warnings: readonly string[]): ReportData {
    const n = this.#times.length;
    const close = <K>(m: Map<K, Tracker>): Map<K, StepSpan[]> => {
      const out = new Map<K, StepSpan[]>();
      for (const [k, tr] of m) {
        const spans = [...tr.spans];
        if (tr.open !== undefined) spans.push({ from: tr.open, to: n - 1 });
        out.set(k, spans);
      }
      return out;
    };
    const thresholds: ReportThreshold[] = [...this.#thresholds.values()].map(({ t, level, reclaim }) => ({
      id: t.id,
      signal: t.signal,
      hard: t.gracePeriodMs === 0,
      origin: t.derivedFrom === undefined ? t.origin : `${t.origin}, from ${t.derivedFrom}`,
      value: formatThresholdValue(t.value),
      gracePeriodMs: t.gracePeriodMs,
      minReclaim: formatThresholdValue(t.minReclaim),
      level: pad(level, n),
      reclaimLevel: pad(reclaim, n),
    }));
    return {
      source: this.#source,
      times: this.#times,
      series: [...this.#series.values()].map((s) => ({
        ...s,
        available: pad(s.available, n),
        capacity: pad(s.capacity, n),
      })),
      thresholds,
      grace: close(this.#grace),
      met: close(this.#met),
      conditions: close(this.#conditions),
      evictions: this.#evictions,
      refusals: this.#refusals,
      podUsage: this.#podUsage(n),
      config: {
        evictionMaxPodGracePeriod: this.#config.maxPodGracePeriodSeconds,
        pressureTransitionPeriodMs: this.#config.pressureTransitionPeriodMs,
        layout: this.#plan?.layout ?? "single",
      },
      warnings,
      ...(this.#figureSources !== undefined ? { figureSources: this.#figureSources } : {}),
      ...this.#reportedPressure(),
      ...this.#recordedViews(),
      ...(this.#environment !== undefined ? { environment: this.#environment } : {}),
    };
  }

  /** Each memory pressure figure of the step's Summary (NaN where none was reported). */
  #takePressure(summary: NodeSummary | undefined): void {
    PRESSURE_SOURCES.forEach((source, k) => {
      const series = this.#pressure[k];
      if (series === undefined) return;
      const psi = summary === undefined ? undefined : source.psi(summary);
      series.some.push(psi?.some?.avg10 ?? Number.NaN);
      series.full.push(psi?.full?.avg10 ?? Number.NaN);
    });
  }

  /** `{ pressure }` with the series some step reported, or nothing when none did. */
  #reportedPressure(): { pressure?: PressureSeries[] } {
    const reported = this.#pressure.filter(
      (p) => p.some.some((v) => !Number.isNaN(v)) || p.full.some((v) => !Number.isNaN(v)),
    );
    return reported.length === 0
      ? {}
      : { pressure: reported.map((p) => ({ ...p, some: [...p.some], full: [...p.full] })) };
  }

  /** The step's recorded node-memory views, at the time they were read (NaN where it has none). */
  #takeViews(o: ReportStep): void {
    const recorded = o.step?.nodeMemoryViews;
    const v = this.#views;
    if (recorded === undefined) {
      for (const values of Object.values(v)) values.push(Number.NaN);
      return;
    }
    const { views } = recorded;
    const kernel = views.withKernelMemory;
    v.readAt.push(o.time + (recorded.atMs === undefined ? 0 : recorded.atMs - (o.step?.atMs ?? 0)));
    v.capacity.push(Number(views.capacityBytes));
    v.kubelet.push(Number(views.kubelet.availableBytes));
    v.kernelAvailable.push(
      views.kernelAvailable === undefined ? Number.NaN : Number(views.kernelAvailable.availableBytes),
    );
    v.withKernelMemory.push(kernel === undefined ? Number.NaN : Number(kernel.availableBytes));
    v.kernelMemory.push(kernel === undefined ? Number.NaN : Number(kernel.kernelMemoryBytes));
    this.#viewsAbout = {
      ...(recorded.source !== undefined ? { source: recorded.source } : {}),
      usageFrom: views.kubelet.usageFrom,
      ...(kernel !== undefined ? { kernelMemoryFrom: kernel.kernelMemoryFrom } : {}),
    };
    if (kernel !== undefined)
      this.#kernelMemoryInKubelet = (this.#kernelMemoryInKubelet ?? true) && kernel.alreadyInKubeletFigure;
  }

  /** `{ nodeMemoryViews }` when some step carried them, or nothing. */
  #recordedViews(): { nodeMemoryViews?: NodeMemoryViewsSeries } {
    const v = this.#views;
    if (!v.kubelet.some((x) => !Number.isNaN(x))) return {};
    return {
      nodeMemoryViews: {
        readAt: [...v.readAt],
        capacity: [...v.capacity],
        kubelet: [...v.kubelet],
        kernelAvailable: [...v.kernelAvailable],
        withKernelMemory: [...v.withKernelMemory],
        kernelMemory: [...v.kernelMemory],
        ...this.#viewsAbout,
        kernelMemoryInKubeletFigure: this.#kernelMemoryInKubelet === true,
      },
    };
  }

  /** Usage per pod of the signals a ranking could use: memory always, the acted-on signal when it ranks. */
  #takeUsage(o: ReportStep, r: SyncReport, plan: ReplayPlan, i: number): void {
    const summary = o.summary;
    if (summary === undefined) return;
    const acted = r.actedOn?.signal;
    if (acted !== undefined && this.#rankingSignal === undefined) this.#rankingSignal = acted;
    const signals = new Set<Signal>(["memory.available"]);
    if (this.#rankingSignal !== undefined) signals.add(this.#rankingSignal);
    const pods = podsOf(o);
    const lookup = podStatsLookup(summary);
    for (const signal of signals) {
      const candidates = rankCandidates(signal, plan.layout, pods, lookup);
      if (candidates === undefined) continue;
      let perPod = this.#usage.get(signal);
      if (perPod === undefined) {
        perPod = new Map();
        this.#usage.set(signal, perPod);
      }
      for (const c of candidates) {
        if (!c.hasStats) continue;
        let values = perPod.get(c.pod.key);
        if (values === undefined) {
          values = new Array<number>(i).fill(Number.NaN);
          perPod.set(c.pod.key, values);
        }
        // A pod missing from some steps (not yet created, or without stats) has no value there.
        while (values.length < i) values.push(Number.NaN);
        values.push(signal === "pid.available" ? Number(c.processCount) : Number(c.usage));
      }
    }
  }

  #rankingAt(o: ReportStep, r: SyncReport, plan: ReplayPlan): { ranking: RankedPlace[]; rankedPods: number } {
    const signal = r.actedOn?.signal;
    if (signal === undefined || o.summary === undefined) return { ranking: [], rankedPods: 0 };
    const explained = explainRanking(signal, plan.layout, podsOf(o), podStatsLookup(o.summary)) ?? [];
    return {
      ranking: explained.slice(0, RANKING_PLACES).map((e) => ({
        place: e.place,
        pod: e.pod.key,
        reason: e.reason,
        critical: e.critical,
      })),
      rankedPods: explained.length,
    };
  }

  #podUsage(n: number): PodUsage | undefined {
    const signal = this.#rankingSignal ?? "memory.available";
    const perPod = this.#usage.get(signal) ?? this.#usage.get("memory.available");
    if (perPod === undefined || perPod.size === 0) return undefined;
    const used = this.#usage.get(signal) === undefined ? "memory.available" : signal;
    const peak = (v: readonly number[]): number => v.reduce((m, x) => (x > m ? x : m), 0);
    const all = [...perPod].map(([pod, values]) => ({ pod, values: pad(values, n) }));
    // The heaviest first; evicted pods always stand on their own.
    all.sort((a, b) => peak(b.values) - peak(a.values) || a.pod.localeCompare(b.pod));
    const shown = all.filter((p, k) => k < USAGE_PODS || this.#evictedAt.has(p.pod));
    const rest = all.filter((p) => !shown.includes(p));
    const pods = shown.map((p) => {
      const at = this.#evictedAt.get(p.pod);
      return at === undefined ? p : { ...p, evictedAt: at };
    });
    if (rest.length > 0) {
      const sum = new Array<number>(n).fill(0);
      for (const p of rest) p.values.forEach((v, k) => (sum[k] = (sum[k] ?? 0) + (Number.isNaN(v) ? 0 : v)));
      pods.push({ pod: `${rest.length} other pods`, values: sum });
    }
    const unit = used === "pid.available" ? "processes" : used.includes("inodes") ? "inodes" : "bytes";
    return { signal: used, unit, pods };
  }
}

function track<K>(m: Map<K, Tracker>, key: K, i: number, on: boolean): void {
  let tr = m.get(key);
  if (tr === undefined) {
    tr = { spans: [], open: undefined };
    m.set(key, tr);
  }
  if (on && tr.open === undefined) tr.open = i;
  else if (!on && tr.open !== undefined) {
    tr.spans.push({ from: tr.open, to: i - 1 });
    tr.open = undefined;
  }
}

/** The pods a step could rank: those active after it and those it evicted. */
function podsOf(o: ReportStep): Pod[] {
  const pods = [...o.activeAfter];
  for (const e of o.report.evictions) if (!pods.some((p) => p.uid === e.pod.uid)) pods.push(e.pod);
  return pods;
}

function pad(values: number[], n: number): number[] {
  if (values.length >= n) return values;
  return values.concat(new Array<number>(n - values.length).fill(Number.NaN));
}
