/**
 * The trace generator's own model of the eviction engine's memory path, written apart from
 * src/core so that it can serve as an oracle: the generator removes the pods it predicts evicted
 * from later scrapes, and tests and the replay benchmark check that the engine, replaying the
 * trace, evicts exactly those pods at exactly those steps.
 *
 * What it models (docs/kubelet-semantics.md), for memory thresholds only (the generated disks stay
 * clear of their thresholds):
 * - met: a threshold is met while its signal's available bytes are below its value, or, once it
 *   has been acted on (grace met), below value + min-reclaim (the kubelet keeps a threshold met
 *   until min-reclaim is recovered);
 * - grace: a met threshold's first-observed time is kept while it stays met and dropped when it
 *   stops; it can be acted on once `now - firstObserved >= grace`;
 * - hard before soft: among the thresholds whose grace is met, a hard one (grace 0) is acted on
 *   first, otherwise the first in config order;
 * - ranking: pods whose working set exceeds their memory request first, then lower priority, then
 *   the larger working set minus request, then active-pod order;
 * - critical skip: the first non-critical pod of that ranking is evicted (one per synchronize); when
 *   every pod is critical nothing is.
 */
import { podWorkingSet, type PodRuntime } from "./trace-summary.js";

/** A memory threshold as the model sees it: bytes and milliseconds. */
export interface MemoryThreshold {
  /** A name for reports: `hard`, `soft`, `allocatable`. */
  readonly id: string;
  readonly signal: "memory.available" | "allocatableMemory.available";
  readonly value: number;
  readonly minReclaim: number;
  /** 0 for a hard threshold. */
  readonly graceMs: number;
}

/** An eviction the model predicts (the generator then removed the pod from later scrapes). */
export interface PredictedEviction {
  /** Index in the written trace's steps. */
  readonly step: number;
  readonly pod: string;
  readonly signal: string;
  /** The id of the threshold acted on. */
  readonly threshold: string;
}

/** Available bytes per memory signal at one synchronize. */
export type MemoryObservation = Readonly<Record<MemoryThreshold["signal"], number>>;

/** What the model decides at one synchronize: the pod to evict and the threshold acted on. */
export interface ModelDecision {
  readonly pod: PodRuntime;
  readonly threshold: MemoryThreshold;
}

/**
 * One node's eviction state, advanced by one `decide` per synchronize. A fresh model is a freshly
 * started kubelet: nothing observed yet.
 */
export class EvictionModel {
  private readonly thresholds: readonly MemoryThreshold[];
  private firstObserved = new Map<string, number>();
  private graceMet = new Set<string>();
  /** When a memory threshold was last met (the MemoryPressure condition lasts a transition period after). */
  private lastMetAt: number | undefined;

  /** @param thresholds - in the engine's config order (hard, soft, then derived copies). */
  constructor(thresholds: readonly MemoryThreshold[]) {
    this.thresholds = thresholds;
  }

  /**
   * Whether the node reports MemoryPressure at `now`, as of the last synchronize: a memory threshold
   * met within the last `transitionMs` (evictionPressureTransitionPeriod).
   */
  memoryPressure(now: number, transitionMs: number): boolean {
    return this.lastMetAt !== undefined && now - this.lastMetAt < transitionMs;
  }

  /** One synchronize at `now` (ms) over the active pods, in active-pod order. */
  decide(
    now: number,
    available: MemoryObservation,
    active: readonly PodRuntime[],
  ): ModelDecision | undefined {
    const met: MemoryThreshold[] = [];
    for (const t of this.thresholds) {
      const a = available[t.signal];
      if (a < t.value || (this.graceMet.has(t.id) && a < t.value + t.minReclaim)) met.push(t);
    }
    if (met.length > 0) this.lastMetAt = now;
    const first = new Map<string, number>();
    for (const t of met) first.set(t.id, this.firstObserved.get(t.id) ?? now);
    this.firstObserved = first;
    const graceMet = met.filter((t) => now - (first.get(t.id) ?? now) >= t.graceMs);
    this.graceMet = new Set(graceMet.map((t) => t.id));
    // Hard before soft; the sort is stable, so config order otherwise.
    const hardFirst = (t: MemoryThreshold): number => (t.graceMs === 0 ? 0 : 1);
    const acted = [...graceMet].sort((a, b) => hardFirst(a) - hardFirst(b))[0];
    if (acted === undefined) return undefined;
    const victim = rankForMemory(active).find((pod) => !pod.model.critical);
    return victim === undefined ? undefined : { pod: victim, threshold: acted };
  }
}

/** The memory ranking: exceeds request, priority, working set minus request, active-pod order. */
function rankForMemory(active: readonly PodRuntime[]): PodRuntime[] {
  const keyed = active.map((pod, order) => {
    const ws = podWorkingSet(pod);
    let request = 0;
    for (const c of pod.model.containers) request += c.memRequest ?? 0;
    return { pod, order, exceeds: ws > request, over: ws - request };
  });
  keyed.sort((a, b) => {
    if (a.exceeds !== b.exceeds) return a.exceeds ? -1 : 1;
    if (a.pod.model.priority !== b.pod.model.priority) return a.pod.model.priority - b.pod.model.priority;
    if (a.over !== b.over) return b.over - a.over;
    return a.order - b.order;
  });
  return keyed.map((k) => k.pod);
}

/** An eviction as both sides are compared: `<step> <namespace>/<name>`. */
export function evictionKey(step: number, pod: string): string {
  return `${step} ${pod}`;
}

/** How the engine's evictions compare with the model's predictions. */
export interface ModelComparison {
  readonly agree: boolean;
  readonly predicted: readonly string[];
  readonly observed: readonly string[];
  /** The first position where the two lists differ, when they do. */
  readonly firstDifference?: {
    readonly index: number;
    readonly predicted?: string;
    readonly observed?: string;
  };
}

/** Compares the engine's evictions (as `evictionKey`s, in order) with the model's predictions. */
export function compareWithModel(
  predicted: readonly PredictedEviction[],
  observed: readonly string[],
): ModelComparison {
  const expected = predicted.map((e) => evictionKey(e.step, e.pod));
  const length = Math.max(expected.length, observed.length);
  for (let i = 0; i < length; i++) {
    if (expected[i] === observed[i]) continue;
    const p = expected[i];
    const o = observed[i];
    return {
      agree: false,
      predicted: expected,
      observed,
      firstDifference: {
        index: i,
        ...(p !== undefined ? { predicted: p } : {}),
        ...(o !== undefined ? { observed: o } : {}),
      },
    };
  }
  return { agree: true, predicted: expected, observed };
}
