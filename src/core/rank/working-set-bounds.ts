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
 * read in full. (The property test in working-set-bounds.test.ts holds the engine to this.)
 */
import type { ContainerStats, FsStats, MemoryStats, NodeSummary, PodStats, VolumeStats } from "../model.js";

/** True when `pod` reports its memory usage but not its working set. */
export function lacksWorkingSet(pod: PodStats): boolean {
  return pod.memory?.usageBytes !== undefined && pod.memory.workingSetBytes === undefined;
}

/** UIDs of the pods in `summary` that report usage but no working set. */
export function podsLackingWorkingSet(summary: NodeSummary): ReadonlySet<string> {
  const uids = new Set<string>();
  for (const pod of summary.pods) if (lacksWorkingSet(pod)) uids.add(pod.podRef.uid);
  return uids;
}

/** `summary` with every pod lacking a working set given its usage as one (see the module comment). */
export function withWorkingSetBounds(summary: NodeSummary): NodeSummary {
  const bounded = new Map<PodStats, PodStats>();
  const bound = (pod: PodStats): PodStats => {
    const memory = pod.memory;
    if (memory?.usageBytes === undefined || memory.workingSetBytes !== undefined) return pod;
    let out = bounded.get(pod);
    if (out === undefined) {
      out = new BoundedPod(pod, { ...memory, workingSetBytes: memory.usageBytes });
      bounded.set(pod, out);
    }
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
