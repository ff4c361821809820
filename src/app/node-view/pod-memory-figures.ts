/**
 * Each pod's memory as /status and the page show it: the last working set read for it, with the
 * time it was read, and whether the last sample read it or carried it from an earlier read (a
 * memory wake reads most pods' usage alone, on a large node not even that: see
 * app/loop/bounded-memory-pick.ts). Kept by last-pod-memory.ts; pure data here.
 */
import type { EpochMs, MemoryStats, NodeSummary, PodStats } from "../../core/model.js";

export interface PodMemoryFigure {
  readonly workingSetBytes: bigint;
  readonly usageBytes?: bigint;
  /** When it was read (absent when the source gave no time). */
  readonly time?: EpochMs;
  /** False: the last sample did not read this pod's working set; the figure is an earlier read's. */
  readonly fromLastRead: boolean;
}

export interface PodMemoryFigures {
  /** When the last sample read the node's memory (its read time), when known. */
  readonly readAt?: EpochMs;
  /** By pod UID, the pods of the last sample that have a working set read at some time. */
  readonly byUid: ReadonlyMap<string, PodMemoryFigure>;
}

/** How much older than the last read `figure` is, in ms; undefined when it is the last read's or a time is unknown. */
export function olderThanLastReadMs(figure: PodMemoryFigure, figures: PodMemoryFigures): number | undefined {
  if (figure.fromLastRead || figure.time === undefined || figures.readAt === undefined) return undefined;
  return Math.max(0, figures.readAt - figure.time);
}

/**
 * `summary` with each pod's memory as `figures` know it: a pod the last sample read by usage alone
 * (no working set) or left unread ranks, on /status, at its last working set read rather than at 0
 * or at its stale entry. For the views only: a decision never ranks on a figure it did not read.
 */
export function withPodMemoryFigures(summary: NodeSummary, figures: PodMemoryFigures): NodeSummary {
  if (figures.byUid.size === 0) return summary;
  const pods = summary.pods.map((pod): PodStats => {
    const figure = figures.byUid.get(pod.podRef.uid);
    if (figure === undefined) return pod;
    const memory = pod.memory;
    if (memory?.workingSetBytes === figure.workingSetBytes && memory.time === figure.time) return pod;
    const replaced: MemoryStats = {
      ...(figure.time !== undefined ? { time: figure.time } : {}),
      workingSetBytes: figure.workingSetBytes,
      ...(figure.usageBytes !== undefined ? { usageBytes: figure.usageBytes } : {}),
    };
    return {
      podRef: pod.podRef,
      memory: replaced,
      containers: pod.containers,
      volumes: pod.volumes,
      ...(pod.ephemeralStorage !== undefined ? { ephemeralStorage: pod.ephemeralStorage } : {}),
      ...(pod.processCount !== undefined ? { processCount: pod.processCount } : {}),
    };
  });
  return { node: summary.node, pods };
}
