/**
 * What a what-if replay carries between steps (docs/replay-format.md, "what-if replay"): the pods
 * the replayed configuration sent away (evicted, or refused when they arrived), whose usage leaves
 * every later recorded sample from the moment they would have been gone; and which pods the
 * recording itself lost while this configuration kept them (the recording's future for them is
 * unknown: diverged, never invented). Pure.
 */
import type { FilesystemLayout, NodeSummary, Pod } from "../../core/model.js";
import { hasOwnStats, summaryWithoutPods, type FreedByPods } from "../../core/summary/without-pods.js";

/** A pod sent away, and from when its usage is out of the node's figures. */
interface Departure {
  readonly pod: Pod;
  readonly fromMs: number;
  /** Whether a sample has already been adjusted for it. */
  taken: boolean;
}

/** The adjusted sample of a step, and what changed. */
export interface AdjustedSample {
  readonly summary: NodeSummary;
  /** Pods whose usage left the figures first in this sample. */
  readonly left: readonly Pod[];
  /** What every pod gone gave back in this sample. */
  readonly freed: FreedByPods | undefined;
}

export class Counterfactual {
  readonly #layout: FilesystemLayout;
  readonly #departures = new Map<string, Departure>();
  /** Pods (UIDs) the recording has reported stats for. */
  readonly #reported = new Set<string>();

  constructor(layout: FilesystemLayout) {
    this.#layout = layout;
  }

  /** `pod` is gone from `fromMs` on: evicted (at its eviction plus its grace period) or refused on arrival. */
  depart(pod: Pod, fromMs: number): void {
    if (!this.#departures.has(pod.uid)) this.#departures.set(pod.uid, { pod, fromMs, taken: false });
  }

  /** Whether `pod` was sent away. */
  departed(uid: string): boolean {
    return this.#departures.has(uid);
  }

  /** The pod left the recording by the recording's own account (`removePods`): nothing to track. */
  forget(uid: string): void {
    this.#reported.delete(uid);
  }

  /** `recorded` as the node would have reported it at `time`, without every pod gone by then. */
  adjust(recorded: NodeSummary, time: number): AdjustedSample {
    const gone: Pod[] = [];
    const left: Pod[] = [];
    for (const d of this.#departures.values()) {
      if (d.fromMs > time) continue;
      gone.push(d.pod);
      if (!d.taken) {
        d.taken = true;
        left.push(d.pod);
      }
    }
    if (gone.length === 0) return { summary: recorded, left, freed: undefined };
    const adjusted = summaryWithoutPods(recorded, gone, this.#layout);
    return {
      summary: adjusted.summary,
      left,
      freed: adjusted.removed.length > 0 ? adjusted.freed : undefined,
    };
  }

  /**
   * The active pods the recording has reported before and not in `recorded`: it lost them (the node
   * evicted them, the kernel killed them, their stats stopped) while this configuration kept them.
   */
  diverged(recorded: NodeSummary, active: readonly Pod[]): Pod[] {
    const has = hasOwnStats(recorded);
    const out: Pod[] = [];
    for (const pod of active) {
      if (has(pod)) this.#reported.add(pod.uid);
      else if (this.#reported.has(pod.uid)) out.push(pod);
    }
    return out;
  }
}
