/**
 * Upper bounds for pods whose working set was not read: a summary in which every pod that reports
 * its memory usage but no working set ranks as if its working set were that usage.
 *
 * Why a decision on such a summary is the decision on a complete one. Usage bounds the working set
 * from above (working set = usage − inactive_file, clamped at 0). The memory ranking orders pods by
 * "working set exceeds the request", then priority, then working set − request: a larger working
 * set never ranks a pod later, and the sort is stable. So when every pod the engine picks from the
 * bounded summary reports its real working set, lowering the other pods' figures from their bounds
 * to their real values cannot move any of them ahead of the picked ones: the complete summary picks
 * the same pods. The PID and disk rankings do not look at memory at all. Nothing else the engine
 * decides reads a pod's working set, except the eviction message of the pods it picks, which are
 * read in full. (test/properties/working-set-bounds.property.test.ts holds the engine to this.)
 *
 * A memory wake on a large node need not read every pod's usage either ({@link UnreadPods}): the
 * pods cgroup's usage counts every page charged to any pod below it, so the pods cgroup's usage less
 * the usage of the pods that were read bounds the usage, and so the working set, of each pod that
 * was not. Such a pod ranks at that bound, whatever figures its entry still carries from an earlier
 * read, and the argument above holds unchanged: every bound is at or above the real figure.
 */
import type { ContainerStats, FsStats, MemoryStats, NodeSummary, PodStats, VolumeStats } from "../model.js";

/**
 * Pods whose memory a read did not look at, and the bound it found for them all: each one's usage is
 * at most `usageBoundBytes` (the pods cgroup's usage less the usage of the pods read). Their entries
 * in the Summary are whatever was read before, each with the time it was read at.
 */
export interface UnreadPods {
  readonly uids: ReadonlySet<string>;
  readonly usageBoundBytes: bigint;
}

/** True when `pod` reports its memory usage but not its working set. */
export function lacksWorkingSet(pod: PodStats): boolean {
  return pod.memory?.usageBytes !== undefined && pod.memory.workingSetBytes === undefined;
}

/** UIDs of the pods in `summary` whose working set is not known: usage without it, or not read at all. */
export function podsLackingWorkingSet(summary: NodeSummary, unread?: UnreadPods): ReadonlySet<string> {
  const uids = new Set<string>();
  for (const pod of summary.pods)
    if (lacksWorkingSet(pod) || unread?.uids.has(pod.podRef.uid) === true) uids.add(pod.podRef.uid);
  return uids;
}

/**
 * `summary` with every pod lacking a working set given its usage as one, and every pod in `unread`
 * given the bound as both (see the module comment).
 */
export function withWorkingSetBounds(summary: NodeSummary, unread?: UnreadPods): NodeSummary {
  const bounded = new Map<PodStats, PodStats>();
  const bound = (pod: PodStats): PodStats => {
    const seen = bounded.get(pod);
    if (seen !== undefined) return seen;
    const memory = pod.memory;
    let figures: MemoryStats;
    if (unread?.uids.has(pod.podRef.uid) === true) {
      const bytes = unread.usageBoundBytes;
      // Literals, not a spread: a memory wake bounds ~100 pods twice, and a spread costs a generic copy each.
      const time = memory?.time;
      figures =
        time !== undefined
          ? { time, usageBytes: bytes, workingSetBytes: bytes }
          : { usageBytes: bytes, workingSetBytes: bytes };
    } else if (memory?.usageBytes !== undefined && memory.workingSetBytes === undefined) {
      figures = { ...memory, workingSetBytes: memory.usageBytes };
    } else return pod;
    const out = new BoundedPod(pod, figures);
    bounded.set(pod, out);
    return out;
  };
  let pods: readonly PodStats[] | undefined;
  const find = summary.findPod;
  return {
    node: summary.node,
    get pods(): readonly PodStats[] {
      pods ??= summary.pods.map(bound);
      return pods;
    },
    ...(find === undefined
      ? {}
      : {
          findPod: (uid: string, key: string): PodStats | undefined => {
            const pod = find(uid, key);
            return pod === undefined ? undefined : bound(pod);
          },
        }),
  };
}

/**
 * A pod's stats with another memory block. Everything else is read through from the pod: a
 * decoder's pods build their containers and volumes on first use, and most bounded pods are never
 * asked for them.
 */
class BoundedPod implements PodStats {
  readonly memory: MemoryStats;
  readonly ephemeralStorage?: FsStats;
  readonly processCount?: bigint;
  readonly #pod: PodStats;

  constructor(pod: PodStats, memory: MemoryStats) {
    this.#pod = pod;
    this.memory = memory;
    if (pod.ephemeralStorage !== undefined) this.ephemeralStorage = pod.ephemeralStorage;
    if (pod.processCount !== undefined) this.processCount = pod.processCount;
  }

  get podRef(): PodStats["podRef"] {
    return this.#pod.podRef;
  }

  get containers(): readonly ContainerStats[] {
    return this.#pod.containers;
  }

  get volumes(): readonly VolumeStats[] {
    return this.#pod.volumes;
  }
}
